! trace_poll.c's Fortran twin (issue 24): rank 0 polls from Fortran, so the
! tracer's Fortran entry points take the failed-poll fast path. It tests an
! Irecv until it completes, probes for a message, polls two Irecvs with
! Testall and one with Testsome; rank 1 sends each after ~30 ms. Rank 0
! prints how many calls of each it made, the counts the trace must give.
program trace_poll_f
  use mpi
  implicit none
  integer :: ierr, rank, req, reqs(2), buf(8), idxs(2), outc, tag
  integer :: tests, probes, alls, somes
  logical :: flag
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  buf = 0
  if (rank == 1) then
    do tag = 5, 9
      call pause()
      call MPI_Send(buf, 4, MPI_INTEGER, 0, tag, MPI_COMM_WORLD, ierr)
    end do
  else if (rank == 0) then
    call MPI_Irecv(buf, 4, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, req, ierr)
    tests = 0
    flag = .false.
    do while (.not. flag)
      call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
      tests = tests + 1
    end do
    probes = 0
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(1, 6, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
      probes = probes + 1
    end do
    call MPI_Recv(buf, 4, MPI_INTEGER, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Irecv(buf, 4, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(buf(5), 4, MPI_INTEGER, 1, 8, MPI_COMM_WORLD, reqs(2), ierr)
    alls = 0
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(2, reqs, flag, MPI_STATUSES_IGNORE, ierr)
      alls = alls + 1
    end do
    call MPI_Irecv(buf, 4, MPI_INTEGER, 1, 9, MPI_COMM_WORLD, reqs(1), ierr)
    somes = 0
    outc = 0
    do while (outc == 0)
      call MPI_Testsome(1, reqs, outc, idxs, MPI_STATUSES_IGNORE, ierr)
      somes = somes + 1
    end do
    print '(a,i0,a,i0,a,i0,a,i0)', 'tests=', tests, ' iprobes=', probes, ' testalls=', alls, &
      ' testsomes=', somes
  end if
  call MPI_Finalize(ierr)
contains
  ! About 30 ms without an MPI call.
  subroutine pause()
    integer(8) :: c0, c, rate
    call system_clock(c0, rate)
    do
      call system_clock(c)
      if (real(c - c0) / real(rate) > 0.03) exit
    end do
  end subroutine
end program
