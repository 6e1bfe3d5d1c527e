! The mpi_f08 twin of trace_known.c: the same MPI calls in the same order,
! so its trace must match the C program's event for event. Exactly 2 ranks.
program trace_known_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, other, srank, x, y, s1, r1, ps, pr, it
  integer :: ibuf(8)
  type(MPI_Comm) :: split
  type(MPI_Request) :: req(2), preq(2)
  type(MPI_Status) :: st
  double precision :: dr(3), ds(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  if (nranks /= 2) call MPI_Abort(MPI_COMM_WORLD, 2)
  other = 1 - rank
  ibuf = 0

  if (rank == 0) then
     call MPI_Send(ibuf, 4, MPI_INTEGER, 1, 7, MPI_COMM_WORLD)
  else
     call MPI_Recv(ibuf, 8, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &
                   MPI_STATUS_IGNORE)
  end if

  ds = (/ 1d0, 2d0 /)
  call MPI_Irecv(dr, 3, MPI_DOUBLE_PRECISION, other, MPI_ANY_TAG, MPI_COMM_WORLD, req(1))
  call MPI_Isend(ds, 2, MPI_DOUBLE_PRECISION, other, 10 + rank, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)

  x = rank
  call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)

  call MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, split)
  call MPI_Comm_rank(split, srank)
  s1 = rank
  call MPI_Sendrecv(s1, 1, MPI_INTEGER, 1 - srank, 5, r1, 1, MPI_INTEGER, MPI_ANY_SOURCE, &
                    MPI_ANY_TAG, split, st)

  ps = rank
  call MPI_Send_init(ps, 1, MPI_INTEGER, other, 3, MPI_COMM_WORLD, preq(2))
  call MPI_Recv_init(pr, 1, MPI_INTEGER, other, 3, MPI_COMM_WORLD, preq(1))
  do it = 1, 2
     call MPI_Startall(2, preq)
     call MPI_Waitall(2, preq, MPI_STATUSES_IGNORE)
  end do
  call MPI_Request_free(preq(1))
  call MPI_Request_free(preq(2))
  call MPI_Comm_free(split)

  call MPI_Pcontrol(0)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Pcontrol(1)
  call MPI_Pcontrol(2)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program trace_known_f08
