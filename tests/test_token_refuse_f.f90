! The Fortran twin of test_token_refuse.c: one-sided communication through the
! Fortran bindings. Token mode must find it among the executable's imports
! (mpi_win_create_, mpi_put_, ...), refuse with one warning and trace in cpu mode,
! and the program must run as usual.
program token_refuse_f
  use mpi
  implicit none
  integer :: ierr, rank, nsize, win, total
  integer, save :: cell = -1
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nsize, ierr)
  winsize = 4
  disp = 0
  call MPI_Win_create(cell, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(rank, 1, MPI_INTEGER, mod(rank + 1, nsize), disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  total = 0
  call MPI_Allreduce(cell, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a, i0, a, i0)') 'token_refuse ranks=', nsize, ' sum=', total
  call MPI_Finalize(ierr)
end program token_refuse_f
