! The Fortran twin of test_token_calls.c for token mode (test_token_examples.py,
! issue 20 item 4): the same blocking calls the token protocol rewrites, in the same
! order — synchronous sends, Sendrecv_replace, spinning on MPI_Test and MPI_Iprobe
! while a partner computes, ANY_SOURCE receives, Probe, Waitany, Waitsome, Bsend,
! collectives on a sub-communicator — entered through the Fortran bindings. Prints
! one checksum line on rank 0, the same in every mode and at every run.
program token_calls_f
  use mpi
  implicit none
  integer :: ierr, rank, nsize, right, left, round, k, idx, outc, half, bufsize
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2), req, rs(2), idxs(2)
  double precision :: total, sum, v, got, r, w, a, b, hs, ignored
  double precision, allocatable :: bbuf(:)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nsize, ierr)
  right = mod(rank + 1, nsize)
  left = mod(rank + nsize - 1, nsize)
  sum = 0.0d0
  v = rank + 1.0d0
  got = 0.0d0

  ! synchronous sends around the ring: even ranks send first
  do round = 1, 3
    if (mod(rank, 2) == 0) then
      call MPI_Ssend(v, 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, ierr)
      call MPI_Recv(got, 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, st, ierr)
    else
      call MPI_Recv(got, 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, st, ierr)
      call MPI_Ssend(v, 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, ierr)
    end if
    sum = sum + got
  end do
  ! Sendrecv_replace around the ring
  r = v
  call MPI_Sendrecv_replace(r, 1, MPI_DOUBLE_PRECISION, right, 2, left, 2, MPI_COMM_WORLD, &
                            st, ierr)
  sum = sum + 10 * r
  ! spinning on MPI_Test while the left neighbour computes first
  call MPI_Irecv(got, 1, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, req, ierr)
  w = work(20000 * (rank + 1), v)
  call MPI_Send(v, 1, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(req, flag, st, ierr)
  end do
  sum = sum + 100 * got
  if (w <= 0) sum = sum + 1
  ! spinning on MPI_Iprobe, then ANY_SOURCE receives; rank 0 collects
  if (rank == 0) then
    do k = 1, nsize - 1
      flag = .false.
      do while (.not. flag)
        call MPI_Iprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, flag, st, ierr)
      end do
      call MPI_Recv(got, 1, MPI_DOUBLE_PRECISION, st(MPI_SOURCE), 4, MPI_COMM_WORLD, st, ierr)
      sum = sum + 1000 * got
    end do
  else
    ignored = work(5000 * rank, v)
    call MPI_Send(v, 1, MPI_DOUBLE_PRECISION, 0, 4, MPI_COMM_WORLD, ierr)
  end if
  ! Probe, Waitany, Waitsome, Bsend
  a = 0
  b = 0
  call MPI_Irecv(a, 1, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, rs(1), ierr)
  call MPI_Irecv(b, 1, MPI_DOUBLE_PRECISION, right, 6, MPI_COMM_WORLD, rs(2), ierr)
  bufsize = 2 * (MPI_BSEND_OVERHEAD + 8)
  allocate (bbuf(bufsize / 8 + 1))
  call MPI_Buffer_attach(bbuf, bufsize, ierr)
  call MPI_Bsend(v, 1, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, ierr)
  call MPI_Send(v, 1, MPI_DOUBLE_PRECISION, left, 6, MPI_COMM_WORLD, ierr)
  call MPI_Waitany(2, rs, idx, st, ierr)
  call MPI_Waitsome(2, rs, outc, idxs, sts, ierr)
  sum = sum + 1d4 * (a + b)
  call MPI_Send(v, 1, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, ierr)
  call MPI_Probe(left, 7, MPI_COMM_WORLD, st, ierr)
  call MPI_Recv(got, 1, MPI_DOUBLE_PRECISION, st(MPI_SOURCE), 7, MPI_COMM_WORLD, st, ierr)
  sum = sum + 1d5 * got
  ! collectives on a sub-communicator and on the world
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  hs = 0
  call MPI_Allreduce(v, hs, 1, MPI_DOUBLE_PRECISION, MPI_SUM, half, ierr)
  call MPI_Comm_free(half, ierr)
  sum = sum + 1d6 * hs
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  total = 0
  call MPI_Reduce(sum, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(total, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  ! no MPI_Buffer_detach: token mode refuses it; MPI_Finalize detaches the buffer
  if (rank == 0) write (*, '(a, i0, a, f0.6)') 'token_calls ranks=', nsize, ' checksum=', total
  call MPI_Finalize(ierr)

contains

  ! A few microseconds of deterministic work, so that a partner is late.
  double precision function work(n, x0)
    integer, intent(in) :: n
    double precision, intent(in) :: x0
    integer :: i
    work = x0
    do i = 0, n - 1
      work = work * 0.999d0 + 1.0d0 / (i + 1.0d0)
    end do
  end function work

end program token_calls_f
