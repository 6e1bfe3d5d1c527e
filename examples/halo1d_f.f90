! halo1d_f: the Fortran twin of halo1d (halo.c compiled with NDIMS=1).
!
! Same options, same MPI calls in the same order with the same counts, tags and peers,
! same arithmetic in the same order, and the same output line: a trace of
! `halo1d_f ARGS` must count exactly what a trace of `halo1d ARGS` counts.
! Keep both in step.
!
! usage: halo1d_f [-s SIZE] [-i ITERS] [-p] [-b] [-S [-R|-F]]
program halo1d_f
  use mpi
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  double precision, parameter :: source = 1.0d-3
  integer :: n, size, iters, ierr, rank, nranks, cart, lo, hi, it, cur, nxt
  integer :: dims(1), req(4), dist, b
  logical :: periodic, nonblocking, strong, periods(1)
  double precision, allocatable :: u(:, :)
  double precision :: sbuf(1, 2), rbuf(1, 2), local, residual, local_sum, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  n = 4096
  iters = 20
  periodic = .false.
  nonblocking = .false.
  strong = .false.
  dist = 0
  if (.not. parse_args()) then
    if (rank == 0) write (error_unit, '(a)') &
      'usage: halo1d_f [-s SIZE] [-i ITERS] [-p] [-b] [-S [-R|-F]]'
    call MPI_Finalize(ierr)
    stop 2
  end if

  dims(1) = 0
  periods(1) = periodic
  call MPI_Dims_create(nranks, 1, dims, ierr)
  ! reorder = .false.: Cartesian ranks are world ranks, as in halo.c.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Cart_shift(cart, 0, 1, lo, hi, ierr)
  ! -S: the rank's block of the SIZE cells (the first SIZE mod P ranks one more; -R the
  ! last; -F blocks of ceil(SIZE/P), the last ranks maybe none: ex_share in ex_common.h)
  size = n
  if (strong) then
    if (size < nranks) then
      if (rank == 0) write (error_unit, '(a,i0,a,i0,a)') 'halo1d_f: -S -s ', size, &
        ': fewer cells than the ', nranks, ' ranks along dimension 0'
      call MPI_Finalize(ierr)
      stop 2
    end if
    if (dist == 2) then
      b = (size + nranks - 1) / nranks
      n = max(0, min(b, size - rank * b))
    else
      n = size / nranks
      if (dist == 1 .and. rank >= nranks - mod(size, nranks)) n = n + 1
      if (dist == 0 .and. rank < mod(size, nranks)) n = n + 1
    end if
  end if

  ! Two copies of the grid, columns swapped after each sweep; index 0 and n+1 are ghosts
  ! (zero at a non-periodic border, never written there).
  allocate (u(0:n + 1, 2))
  u = 0.0d0
  sbuf = 0.0d0
  rbuf = 0.0d0
  cur = 1
  nxt = 2
  residual = 0.0d0
  do it = 1, iters
    if (nonblocking) then
      call exchange_nonblocking()
    else
      call exchange_blocking()
    end if
    if (lo /= MPI_PROC_NULL) u(0, cur) = rbuf(1, 1)
    if (hi /= MPI_PROC_NULL) u(n + 1, cur) = rbuf(1, 2)
    local = sweep()
    call MPI_Allreduce(local, residual, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
    cur = 3 - cur
    nxt = 3 - nxt
  end do

  local_sum = 0.0d0
  do it = 1, n
    local_sum = local_sum + u(it, cur)
  end do
  call MPI_Reduce(local_sum, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, cart, ierr)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,a,a,a)') 'halo1d ranks=', nranks, ' size=', size, &
      ' iters=', iters, ' checksum=', trim(c_style(total)), ' residual=', trim(c_style(residual))
  end if
  call MPI_Comm_free(cart, ierr)
  deallocate (u)
  call MPI_Finalize(ierr)

contains

  ! Face 1 travels upwards (to hi, tag 0), face 2 downwards (to lo, tag 1), as in halo.c.
  subroutine exchange_blocking()
    sbuf(1, 1) = u(n, cur)
    call MPI_Sendrecv(sbuf(1, 1), 1, MPI_DOUBLE_PRECISION, hi, 0, &
                      rbuf(1, 1), 1, MPI_DOUBLE_PRECISION, lo, 0, &
                      cart, MPI_STATUS_IGNORE, ierr)
    sbuf(1, 2) = u(1, cur)
    call MPI_Sendrecv(sbuf(1, 2), 1, MPI_DOUBLE_PRECISION, lo, 1, &
                      rbuf(1, 2), 1, MPI_DOUBLE_PRECISION, hi, 1, &
                      cart, MPI_STATUS_IGNORE, ierr)
  end subroutine exchange_blocking

  subroutine exchange_nonblocking()
    call MPI_Irecv(rbuf(1, 1), 1, MPI_DOUBLE_PRECISION, lo, 0, cart, req(1), ierr)
    call MPI_Irecv(rbuf(1, 2), 1, MPI_DOUBLE_PRECISION, hi, 1, cart, req(2), ierr)
    sbuf(1, 1) = u(n, cur)
    sbuf(1, 2) = u(1, cur)
    call MPI_Isend(sbuf(1, 1), 1, MPI_DOUBLE_PRECISION, hi, 0, cart, req(3), ierr)
    call MPI_Isend(sbuf(1, 2), 1, MPI_DOUBLE_PRECISION, lo, 1, cart, req(4), ierr)
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
  end subroutine exchange_nonblocking

  ! One Jacobi sweep from column cur into column nxt; the local sum of squared updates.
  double precision function sweep()
    integer :: i
    double precision :: acc, diff
    sweep = 0.0d0
    do i = 1, n
      acc = source
      acc = acc + u(i - 1, cur)
      acc = acc + u(i + 1, cur)
      u(i, nxt) = acc/2.0d0
      diff = u(i, nxt) - u(i, cur)
      sweep = sweep + diff*diff
    end do
  end function sweep

  ! The number as C's printf("%.12E") writes it.
  function c_style(x) result(text)
    double precision, intent(in) :: x
    character(len=32) :: text
    write (text, '(es32.12e2)') x
    text = adjustl(text)
  end function c_style

  ! The options of ex_common.h; false on anything else.
  logical function parse_args()
    character(len=64) :: arg, val
    integer :: i, ios
    parse_args = .true.
    i = 1
    do while (i <= command_argument_count() .and. parse_args)
      call get_command_argument(i, arg)
      select case (trim(arg))
      case ('-p')
        periodic = .true.
      case ('-b')
        nonblocking = .true.
      case ('-S')
        strong = .true.
      case ('-R')
        dist = 1
      case ('-F')
        dist = 2
      case ('-s', '-i')
        if (i == command_argument_count()) then
          parse_args = .false.
          return
        end if
        i = i + 1
        call get_command_argument(i, val)
        if (trim(arg) == '-s') then
          read (val, *, iostat=ios) n
          parse_args = ios == 0 .and. n >= 1 .and. n <= 16777216
        else
          read (val, *, iostat=ios) iters
          parse_args = ios == 0 .and. iters >= 1 .and. iters <= 1000000
        end if
      case default
        parse_args = .false.
      end select
      i = i + 1
    end do
  end function parse_args

end program halo1d_f
