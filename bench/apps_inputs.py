"""Inputs of the Debian MPI applications the benches run (installed by hand:
`apt-get install hpcc lammps`): LAMMPS's 3-d Lennard-Jones melt with its box
edge and steps as variables, and hpcc's Debian example input for one size and
one process grid."""

# LAMMPS's bench/in.lj (3-d LJ melt), box edge and steps as variables
IN_LJ = """# 3d Lennard-Jones melt (LAMMPS bench/in.lj): s lattice cells per edge, t steps
variable s index 8
variable t index 100
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 ${s} 0 ${s} 0 ${s}
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
run ${t}
"""

# HPL process grid P x Q (P <= Q) for each p
GRID = {1: (1, 1), 2: (1, 2), 4: (2, 2), 8: (2, 4), 16: (4, 4), 32: (4, 8)}


def hpccinf(n, nb, p):
    """The Debian example input with one problem size N, one block NB, one grid."""
    lines = open("/usr/share/doc/hpcc/examples/_hpccinf.txt").read().split("\n")
    pp, qq = GRID[p]
    lines[5] = f"{n}          Ns"
    lines[7] = f"{nb}           NBs"
    lines[10] = f"{pp}            Ps"
    lines[11] = f"{qq}            Qs"
    return "\n".join(lines)
