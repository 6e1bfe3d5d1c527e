! The Fortran twin of trace_known.c: the same MPI calls in the same order,
! so its trace must match the C program's event for event. Exactly 2 ranks.
program trace_known
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, other, srank, split, x, y, s1, r1, ps, pr, it
  integer :: ibuf(8), req(2), preq(2), st(MPI_STATUS_SIZE)
  double precision :: dr(3), ds(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (nranks /= 2) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  other = 1 - rank
  ibuf = 0

  if (rank == 0) then
     call MPI_Send(ibuf, 4, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr)
  else
     call MPI_Recv(ibuf, 8, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &
                   MPI_STATUS_IGNORE, ierr)
  end if

  ds = (/ 1d0, 2d0 /)
  call MPI_Irecv(dr, 3, MPI_DOUBLE_PRECISION, other, MPI_ANY_TAG, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(ds, 2, MPI_DOUBLE_PRECISION, other, 10 + rank, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)

  x = rank
  call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)

  call MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, split, ierr)
  call MPI_Comm_rank(split, srank, ierr)
  s1 = rank
  call MPI_Sendrecv(s1, 1, MPI_INTEGER, 1 - srank, 5, r1, 1, MPI_INTEGER, MPI_ANY_SOURCE, &
                    MPI_ANY_TAG, split, st, ierr)

  ps = rank
  call MPI_Send_init(ps, 1, MPI_INTEGER, other, 3, MPI_COMM_WORLD, preq(2), ierr)
  call MPI_Recv_init(pr, 1, MPI_INTEGER, other, 3, MPI_COMM_WORLD, preq(1), ierr)
  do it = 1, 2
     call MPI_Startall(2, preq, ierr)
     call MPI_Waitall(2, preq, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Request_free(preq(1), ierr)
  call MPI_Request_free(preq(2), ierr)
  call MPI_Comm_free(split, ierr)

  call MPI_Pcontrol(0)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Pcontrol(1)
  call MPI_Pcontrol(2)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program trace_known
