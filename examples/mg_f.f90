! mg_f: the Fortran twin of mg (mg.c): a multigrid V-cycle's communication on a 2-D
! periodic process grid, with -c its coarse levels on fewer ranks (issue 20: the NPB MG
! shape, in the language most such codes are written in).
!
! Same options, same MPI calls in the same order with the same counts, tags and peers,
! same arithmetic in the same order, and the same output line: a trace of
! `mg_f ARGS` must count exactly what a trace of `mg ARGS` counts. Keep both in step.
!
! usage: mg_f [-s SIZE] [-i ITERS] [-c]     (defaults 16, 2; SIZE a power of two)
program mg_f
  use mpi
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  integer, parameter :: tag_coarse = 100
  integer :: n, iters, ierr, rank, nranks, cart, it, l, j, levels, clevels
  integer :: dims(2), coords(2)
  logical :: coarse_levels, periods(2)
  double precision, allocatable :: out(:), in(:)
  double precision :: res, local

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  n = 16
  iters = 2
  coarse_levels = .false.
  if (.not. parse_args()) then
    if (rank == 0) write (error_unit, '(a)') 'usage: mg_f [-s SIZE] [-i ITERS] [-c]'
    call MPI_Finalize(ierr)
    stop 2
  end if
  if (iand(n, n - 1) /= 0) then
    if (rank == 0) write (error_unit, '(a,i0,a)') 'mg: SIZE ', n, ': need a power of two'
    call MPI_Finalize(ierr)
    stop 2
  end if

  dims = 0
  periods = .true.
  call MPI_Dims_create(nranks, 2, dims, ierr)
  ! reorder = .false.: Cartesian ranks are world ranks, as in mg.c.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Cart_coords(cart, rank, 2, coords, ierr)
  levels = 0
  do while (ishft(1, levels + 1) <= n)
    levels = levels + 1
  end do
  ! level j while 2^j divides both sides (mg.c)
  clevels = 0
  if (coarse_levels) then
    do while (ishft(2, clevels) <= minval(dims) .and. mod(dims(1), ishft(2, clevels)) == 0 &
              .and. mod(dims(2), ishft(2, clevels)) == 0)
      clevels = clevels + 1
    end do
  end if
  allocate (out(n), in(n))
  out = 0.0d0
  in = 0.0d0
  res = 0.0d0
  do it = 1, iters
    do l = 0, levels - 1 ! down the V: faces halving
      call exchange(ishft(n, -l), l)
    end do
    do j = 1, clevels ! coarse levels on fewer ranks
      call coarse(j)
    end do
    do l = levels - 1, 0, -1 ! up the V: faces doubling
      call exchange(ishft(n, -l), l)
    end do
    local = out(1)
    call MPI_Allreduce(local, res, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
  end do
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,a)') 'mg ranks=', nranks, ' grid=', &
      dims(1), 'x', dims(2), ' size=', n, ' levels=', levels, ' coarse=', clevels, &
      ' iters=', iters, ' res=', trim(c_style(res))
  end if
  deallocate (out, in)
  call MPI_Comm_free(cart, ierr)
  call MPI_Finalize(ierr)

contains

  ! One smoothing step's face exchange of m doubles with the 4 neighbours (mg.c).
  subroutine exchange(m, tag)
    integer, intent(in) :: m, tag
    integer :: d, lo, hi, k
    do d = 0, 1
      call MPI_Cart_shift(cart, d, 1, lo, hi, ierr)
      call MPI_Sendrecv(out, m, MPI_DOUBLE_PRECISION, hi, tag, in, m, MPI_DOUBLE_PRECISION, &
                        lo, tag, cart, MPI_STATUS_IGNORE, ierr)
      call MPI_Sendrecv(out, m, MPI_DOUBLE_PRECISION, lo, tag, in, m, MPI_DOUBLE_PRECISION, &
                        hi, tag, cart, MPI_STATUS_IGNORE, ierr)
      do k = 1, m
        out(k) = 0.5d0*(out(k) + in(k))
      end do
    end do
  end subroutine exchange

  ! Coarse level j: the active ranks (coordinates multiples of 2^j) exchange one double
  ! with the active neighbours 2^j away.
  subroutine coarse(j)
    integer, intent(in) :: j
    integer :: d, lo, hi, step
    double precision :: v(1), got(1) ! arrays, as every buffer here: one interface
    step = ishft(1, j)
    if (mod(coords(1), step) /= 0 .or. mod(coords(2), step) /= 0) return
    do d = 0, 1
      got(1) = 0.0d0
      v(1) = out(1)
      call MPI_Cart_shift(cart, d, step, lo, hi, ierr)
      call MPI_Sendrecv(v, 1, MPI_DOUBLE_PRECISION, hi, tag_coarse + j, got, 1, &
                        MPI_DOUBLE_PRECISION, lo, tag_coarse + j, cart, MPI_STATUS_IGNORE, ierr)
      out(1) = 0.5d0*(out(1) + got(1))
    end do
  end subroutine coarse

  ! The number as C's printf("%.9E") writes it.
  function c_style(x) result(text)
    double precision, intent(in) :: x
    character(len=32) :: text
    write (text, '(es32.9e2)') x
    text = adjustl(text)
  end function c_style

  ! The options of ex_common.h and -c; false on anything else.
  logical function parse_args()
    character(len=64) :: arg, val
    integer :: i, ios
    parse_args = .true.
    i = 1
    do while (i <= command_argument_count() .and. parse_args)
      call get_command_argument(i, arg)
      select case (trim(arg))
      case ('-c')
        coarse_levels = .true.
      case ('-s', '-i')
        if (i == command_argument_count()) then
          parse_args = .false.
          return
        end if
        i = i + 1
        call get_command_argument(i, val)
        if (trim(arg) == '-s') then
          read (val, *, iostat=ios) n
          parse_args = ios == 0 .and. n >= 1 .and. n <= 65536
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

end program mg_f
