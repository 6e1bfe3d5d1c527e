#!/usr/bin/env python3
"""Generate the tracer's MPI wrappers from mpi_calls.def.

usage: gen_wrappers.py mpi_calls.def OUT.c

For each entry it writes
  * the C wrapper MPI_Xxx, calling PMPI_Xxx, and
  * the Fortran entry point mpi_xxx_ (aliases mpi_xxx, mpi_xxx__, MPI_XXX,
    and for Open MPI ompi_xxx_f, which its mpi_f08 module calls),
    which passes the Fortran arguments unchanged to the library's own
    Fortran profiling entry pmpi_xxx_ (so MPI_IN_PLACE, MPI_BOTTOM and the
    other Fortran sentinels keep working) and converts only what the record
    code reads (handles with *_f2c, statuses with MPI_Status_f2c, 1-based
    indices) into C values of the same names.
See tracer.h for the frame protocol the generated code follows.
"""
import re
import sys

HANDLES = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Group": "Group",
           "MPI_Info": "Info", "MPI_Op": "Op", "MPI_Request": "Request"}


class Arg:
    """One parameter: C declaration pieces and how Fortran passes it."""

    def __init__(self, text):
        text = text.strip()
        self.index1 = "@index1" in text
        text = text.replace("@index1", "").strip()
        m = re.match(r"^(.*?)([A-Za-z_]\w*)\s*(\[(.*)\])?$", text)
        if not m:
            raise SystemExit("cannot parse argument: " + text)
        self.ctype = m.group(1).strip()
        self.name = m.group(2)
        self.is_array = m.group(3) is not None
        self.length = (m.group(4) or "").strip()
        base = self.ctype.replace("const", "").replace("*", "").strip()
        self.base = base
        self.is_ptr = "*" in self.ctype
        if self.ctype.endswith("void *"):
            self.kind = "buf"
        elif base == "MPI_Status":
            self.kind = "statusarr" if self.is_array else "status"
        elif base in HANDLES and self.is_array:
            self.kind = "handlearr"
        elif base in HANDLES and self.is_ptr:
            self.kind = "handleptr"
        elif base in HANDLES:
            self.kind = "handle"
        elif base == "int" and self.is_array and self.index1:
            self.kind = "idxarr"
        elif base == "int" and self.is_array:
            self.kind = "intarr"
        elif base == "int" and self.is_ptr:
            self.kind = "outint"
        elif base == "int":
            self.kind = "int"
        else:
            raise SystemExit("unsupported argument type: " + text)

    def c_decl(self):
        if self.is_array:
            return "%s %s[]" % (self.ctype, self.name)
        sep = "" if self.ctype.endswith("*") else " "
        return "%s%s%s" % (self.ctype, sep, self.name)

    def f_decl(self):
        return ("void *f_%s" if self.kind == "buf" else "MPI_Fint *f_%s") % self.name

    def f_call(self):
        """Expression passed to pmpi_xxx_ (status arrays may be substituted)."""
        if self.kind in ("status", "statusarr"):
            return "%s_fp" % self.name
        return "f_" + self.name


class Call:
    def __init__(self, name, op):
        self.name, self.op = name, op
        self.args, self.pre, self.post = [], [], []
        self.token = None  # token mode: expression replacing the PMPI call
        self.gate = None   # token mode: communicator of a blocking collective
        self.hot = None    # failed polls' fast path: its test (tracer.h, mct_poll_run)
        self.fail = None   # and when the call failed

    def used(self, arg):
        code = "\n".join(self.pre + self.post)
        if re.search(r"\b%s\b" % re.escape(arg.name), code):
            return True
        # lengths of other arrays may refer to it
        return any(re.search(r"\b%s\b" % re.escape(arg.name), a.length)
                   for a in self.args if a.length and self.used_direct(a))

    def used_direct(self, arg):
        code = "\n".join(self.pre + self.post)
        return re.search(r"\b%s\b" % re.escape(arg.name), code) is not None


def parse(path):
    calls, cur = [], None
    for lineno, raw in enumerate(open(path), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, _, rest = line.partition(" ")
        if key == "call":
            name, op = rest.split()
            cur = Call(name, op)
            calls.append(cur)
        elif key == "args":
            cur.args = [Arg(a) for a in split_args(rest)]
        elif key == "pre":
            cur.pre.append(rest.strip())
        elif key == "post":
            cur.post.append(rest.rstrip()[1:] if rest.startswith(" ") else rest)
        elif key == "token":
            cur.token = rest.strip()
        elif key == "gate":
            cur.gate = rest.strip()
        elif key == "hot":
            cur.hot = rest.strip()
        elif key == "fail":
            cur.fail = rest.strip()
        else:
            raise SystemExit("%s:%d: unknown key %r" % (path, lineno, key))
    return calls


def split_args(text):
    """Splits on commas outside brackets/parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def emit_statuses(c, w, ind):
    """Status arguments the caller ignores get the wrapper's own."""
    for a in c.args:
        if a.kind == "status":
            w(ind + "MPI_Status %s_v;\n" % a.name)
            w(ind + "if (%s == MPI_STATUS_IGNORE)\n%s    %s = &%s_v;\n"
              % (a.name, ind, a.name, a.name))
        elif a.kind == "statusarr":
            w(ind + "if (%s == MPI_STATUSES_IGNORE && (%s) > 0) {\n" % (a.name, a.length))
            w(ind + "    MPI_Status *p_ = mct_scratch(4, (size_t)(%s) * sizeof(MPI_Status));\n"
              % a.length)
            w(ind + "    if (p_)\n%s        %s = p_;\n%s}\n" % (ind, a.name, ind))


def emit_hot(c, w, names):
    """A failed poll of an armed run: the clock around the PMPI call only."""
    w("    mct_hot H;\n")
    w("    if (%s) {\n" % c.hot)
    emit_statuses(c, w, "        ")
    w("        int rc = PMPI_%s(%s);\n" % (c.name, names))
    w("        if (mct_hot_fold(&H, %s))\n            return rc;\n" % c.fail)
    w("        mct_hot_cold(&H, F, MC_OP_%s);\n" % c.op)
    for line in c.post:
        w("        %s\n" % line)
    w("        (void)rc;\n        mct_leave(F);\n        return rc;\n    }\n")


def emit_c(c, w):
    params = ", ".join(a.c_decl() for a in c.args)
    names = ", ".join(a.name for a in c.args)
    w("MCT_EXPORT int MPI_%s(%s)\n{\n" % (c.name, params))
    w("    mct_frame f_, *F = &f_;\n")
    if c.hot:
        emit_hot(c, w, names)
    w("    if (!mct_enter(F, MC_OP_%s, MCT_RETADDR()))\n" % c.op)
    w("        return PMPI_%s(%s);\n" % (c.name, names))
    emit_statuses(c, w, "    ")
    for line in c.pre:
        w("    %s\n" % line)
    if c.gate:
        w("    if (mct_token_on)\n        mctk_gate(%s);\n" % c.gate)
    if c.token:
        w("    int rc = mct_token_on ? %s : PMPI_%s(%s);\n" % (c.token, c.name, names))
    else:
        w("    int rc = PMPI_%s(%s);\n" % (c.name, names))
    w("    mct_stop(F);\n")
    for line in c.post:
        w("    %s\n" % line)
    if c.gate:
        # the exit time is when the rank may compute again: with the token
        w("    if (mct_token_on) {\n        mctk_acquire();\n        mct_stop(F);\n    }\n")
    w("    (void)rc;\n    mct_leave(F);\n    return rc;\n}\n\n")


def emit_fortran_token(c, w):
    """Token mode on the Fortran path: a helper that gives the call's token
    expression (written for C arguments) C views of the Fortran arguments,
    runs it, and writes the outputs back in Fortran form (handles with *_c2f,
    statuses with MPI_Status_c2f, 1-based indices). Status arguments arrive as
    the wrapper's substitutes, never as MPI_STATUS(ES)_IGNORE."""
    params = ", ".join(a.f_decl() for a in c.args)
    w("static int mctf_%s_token(%s)\n{\n" % (c.name.lower(), params))
    arrays = []
    for a in c.args:
        n = a.name
        if a.kind == "int":
            w("    int %s = (int)*f_%s;\n" % (n, n))
        elif a.kind == "handle":
            w("    %s %s = PMPI_%s_f2c(*f_%s);\n" % (a.base, n, HANDLES[a.base], n))
        elif a.kind == "buf":
            w("    void *%s = (void *)mct_f_buf(f_%s);\n" % (n, n))
        elif a.kind == "intarr":
            w("    const int *%s = (const int *)f_%s;\n" % (n, n))
        elif a.kind == "handleptr":
            w("    %s %s_v = PMPI_%s_f2c(*f_%s), *%s = &%s_v;\n"
              % (a.base, n, HANDLES[a.base], n, n, n))
        elif a.kind == "outint":
            w("    int %s_v = 0, *%s = &%s_v;\n" % (n, n, n))
        elif a.kind == "status":
            w("    MPI_Status %s_v, *%s = &%s_v;\n" % (n, n, n))
        elif a.kind in ("handlearr", "statusarr", "idxarr"):
            arrays.append(a)
        else:
            raise SystemExit("%s: no token path for argument %s" % (c.name, n))
    for a in arrays:
        ctype = "int" if a.kind == "idxarr" else a.base
        w("    %s *%s = calloc((size_t)(%s) + 1, sizeof(%s));\n" % (ctype, a.name, a.length, ctype))
    if arrays:
        w("    if (%s) {\n" % " || ".join("!" + a.name for a in arrays))
        for a in arrays:
            w("        free(%s);\n" % a.name)
        w("        return MPI_ERR_NO_MEM;\n    }\n")
    for a in arrays:
        if a.kind == "handlearr":
            w("    for (int i_ = 0; i_ < (%s); i_++)\n" % a.length)
            w("        %s[i_] = PMPI_%s_f2c(f_%s[i_]);\n" % (a.name, HANDLES[a.base], a.name))
    w("    int rc = %s;\n" % c.token)
    for a in c.args:
        n = a.name
        if a.kind == "handleptr":
            w("    *f_%s = PMPI_%s_c2f(%s_v);\n" % (n, HANDLES[a.base], n))
        elif a.kind == "outint" and a.index1:
            w("    *f_%s = (MPI_Fint)(%s_v == MPI_UNDEFINED ? %s_v : %s_v + 1);\n" % (n, n, n, n))
        elif a.kind == "outint":
            w("    *f_%s = (MPI_Fint)%s_v;\n" % (n, n))
        elif a.kind == "status":
            w("    PMPI_Status_c2f(%s, f_%s);\n" % (n, n))
        elif a.kind in ("handlearr", "statusarr", "idxarr"):
            w("    for (int i_ = 0; i_ < (%s); i_++)\n" % a.length)
            if a.kind == "handlearr":
                w("        f_%s[i_] = PMPI_%s_c2f(%s[i_]);\n" % (n, HANDLES[a.base], n))
            elif a.kind == "statusarr":
                w("        PMPI_Status_c2f(&%s[i_], f_%s + (size_t)i_ * MCT_FSTATUS);\n" % (n, n))
            else:
                w("        f_%s[i_] = (MPI_Fint)(%s[i_] + 1);\n" % (n, n))
    for a in arrays:
        w("    free(%s);\n" % a.name)
    w("    return rc;\n}\n\n")


def emit_f_status(a, w, ind, f08, next_slot, bail):
    """A Fortran status argument: the caller's, or the wrapper's own if ignored."""
    if a.kind == "status":
        w(ind + "MPI_Fint %s_fl[MCT_FSTATUS_MAX], *%s_fp = f_%s;\n" % (a.name, a.name, a.name))
        w(ind + "if (mct_f%s_status_ignore(f_%s))\n%s    %s_fp = %s_fl;\n"
          % ("08" if f08 else "", a.name, ind, a.name, a.name))
    else:
        k = next_slot()
        w(ind + "MPI_Fint *%s_fp = f_%s;\n" % (a.name, a.name))
        w(ind + "if (mct_f%s_statuses_ignore(f_%s) && (%s) > 0) {\n"
          % ("08" if f08 else "", a.name, a.length))
        w(ind + "    %s_fp = mct_scratch(%d, (size_t)(%s) * MCT_FSTATUS * sizeof(MPI_Fint));\n"
          % (a.name, k, a.length))
        w(ind + "    if (!%s_fp)\n%s        %s\n%s}\n" % (a.name, ind, bail, ind))


def emit_f_outputs(c, w, ind, used, next_slot, bail_post):
    """The outputs of the call as C values (valid after it), then the post code."""
    for a in c.args:
        if not used[a.name]:
            continue
        if a.kind == "buf":
            w(ind + "const void *%s = mct_f_buf(f_%s);\n" % (a.name, a.name))
        elif a.kind == "handleptr":
            w(ind + "%s_v = PMPI_%s_f2c(*f_%s);\n" % (a.name, HANDLES[a.base], a.name))
        elif a.kind == "outint":
            w(ind + "int %s_v = (int)*f_%s, *%s = &%s_v;\n" % (a.name, a.name, a.name, a.name))
            if a.index1:
                w(ind + "if (%s_v != MPI_UNDEFINED)\n        %s_v--;\n" % (a.name, a.name))
        elif a.kind == "status":
            w(ind + "MPI_Status %s_v, *%s = &%s_v;\n" % (a.name, a.name, a.name))
            w(ind + "PMPI_Status_f2c(%s_fp, %s);\n" % (a.name, a.name))
        elif a.kind == "statusarr":
            k = next_slot()
            w(ind + "MPI_Status *%s = mct_scratch(%d, (size_t)(%s) * sizeof(MPI_Status) + 1);\n"
              % (a.name, k, a.length))
            w(ind + "if (!%s)\n        %s\n" % (a.name, bail_post))
            w(ind + "for (int i_ = 0; i_ < (%s); i_++)\n" % a.length)
            w(ind + "    PMPI_Status_f2c(%s_fp + (size_t)i_ * MCT_FSTATUS, &%s[i_]);\n"
              % (a.name, a.name))
        elif a.kind == "idxarr":
            k = next_slot()
            w(ind + "int *%s = mct_scratch(%d, (size_t)(%s) * sizeof(int) + 1);\n"
              % (a.name, k, a.length))
            w(ind + "if (!%s)\n        %s\n" % (a.name, bail_post))
            w(ind + "for (int i_ = 0; i_ < (%s); i_++)\n" % a.length)
            w(ind + "    %s[i_] = (int)f_%s[i_] - 1;\n" % (a.name, a.name))
    for line in c.post:
        w(ind + "%s\n" % line)


def emit_f_hot(c, w, f08, real_args, used, bail_post):
    """The failed-poll fast path of a Fortran entry (tracer.h, mct_poll_run): the
    handles (or Iprobe's source, tag, communicator) as C values, then as emit_hot."""
    w("    mct_hot H;\n")
    w("    if (mct_run.armed && mct_run.op == MC_OP_%s && mct_run.ret == MCT_RETADDR()) {\n"
      % c.op)
    ind = "        "
    for a in c.args:
        if a.kind == "int" and used[a.name]:
            w(ind + "int %s = (int)*f_%s;\n" % (a.name, a.name))
        elif a.kind == "handle" and used[a.name]:
            w(ind + "%s %s = PMPI_%s_f2c(*f_%s);\n" % (a.base, a.name, HANDLES[a.base], a.name))
    reqs = [a for a in c.args if a.base == "MPI_Request" and a.kind in ("handleptr", "handlearr")]
    if reqs:
        a = reqs[0]
        n = "1" if a.kind == "handleptr" else a.length
        w(ind + "MPI_Request hr_[MCT_HOT_MAX];\n")
        w(ind + "int hn_ = %s;\n" % n)
        w(ind + "for (int i_ = 0; i_ < hn_ && i_ < MCT_HOT_MAX; i_++)\n")
        w(ind + "    hr_[i_] = PMPI_Request_f2c(f_%s[i_]);\n" % a.name)
        test = "hn_ <= MCT_HOT_MAX && mct_hot_cpl(&H, MC_OP_%s, MCT_RETADDR(), hn_, hr_)" % c.op
    else:
        test = "mct_hot_probe(&H, MCT_RETADDR(), source, tag, comm)"
    w(ind + "if (%s) {\n" % test)
    ind2 = ind + "    "
    slot = [4]

    def next_slot():
        slot[0] += 1
        return slot[0]
    # as the slow path's: the call is made, tracing stops
    bail = ("{ mct_hot_fold(&H, 0); real(%s); mct_fail(\"out of memory\"); return; }"
            % ", ".join(["f_" + a.name for a in c.args] + ["ierr"]))
    for a in c.args:
        if a.kind == "handleptr" and used[a.name]:
            w(ind2 + "%s %s_v, *%s = &%s_v;\n" % (a.base, a.name, a.name, a.name))
            w(ind2 + "(void)%s; /* the pre code's, which mct_hot_cold stands for */\n"
              % a.name)
    for a in c.args:
        if a.kind in ("status", "statusarr"):
            emit_f_status(a, w, ind2, f08, next_slot, bail)
    w(ind2 + "real(%s);\n" % real_args)
    outs = {a.name for a in c.args if a.kind == "outint"}
    fail = re.sub(r"\*(\w+)", lambda m: "(int)*f_" + m.group(1) if m.group(1) in outs
                  else m.group(0), c.fail).replace("rc ==", "(int)*ierr ==")
    w(ind2 + "if (mct_hot_fold(&H, %s))\n%s    return;\n" % (fail, ind2))
    w(ind2 + "mct_hot_cold(&H, F, MC_OP_%s);\n" % c.op)
    w(ind2 + "int rc = (int)*ierr;\n")
    emit_f_outputs(c, w, ind2, used, next_slot, bail_post)
    w(ind2 + "(void)rc;\n" + ind2 + "mct_leave(F);\n" + ind2 + "return;\n")
    w(ind + "}\n    }\n")


def emit_fortran(c, w, f08=False):
    """f08: MPICH's mpi_f08 procedure mpi_xxx_f08_ (buffer-less calls only):
    the same arguments, but IERROR is optional (NULL when absent) and the
    status sentinels are the f08 ones."""
    lname = "mpi_" + c.name.lower()
    entry = lname + ("_f08_" if f08 else "_")
    real_name = entry if f08 else "p" + lname + "_"
    fparams = ", ".join([a.f_decl() for a in c.args] + ["MPI_Fint *ierr"])
    ftypes = ", ".join(["void *" if a.kind == "buf" else "MPI_Fint *" for a in c.args]
                       + ["MPI_Fint *"])
    real_args = ", ".join([a.f_call() for a in c.args] + ["ierr"])
    orig_args = ", ".join(["f_" + a.name for a in c.args] + ["ierr"])
    if not f08:
        w("typedef void (*%s_fn)(%s);\n" % (lname, ftypes))
    w("static %s_fn %s_real;\n" % (lname, entry))
    w("MCT_EXPORT void %s(%s)\n{\n" % (entry, fparams))
    if f08:
        w("    MPI_Fint ierr_absent;\n    if (!ierr)\n        ierr = &ierr_absent;\n")
    w("    %s_fn real = __atomic_load_n(&%s_real, __ATOMIC_ACQUIRE);\n" % (lname, entry))
    w("    if (!real) {\n")
    w("        real = (%s_fn)mct_f_resolve(\"%s\");\n" % (lname, real_name))
    w("        __atomic_store_n(&%s_real, real, __ATOMIC_RELEASE);\n" % entry)
    w("    }\n")
    w("    if (!real) {\n        *ierr = MPI_ERR_INTERN;\n        return;\n    }\n")
    w("    mct_frame f_, *F = &f_;\n")
    bail_pre = ("{ real(%s); mct_fail(\"out of memory\"); F->record = 0; "
                "mct_leave(F); return; }" % orig_args)
    bail_post = "{ mct_fail(\"out of memory\"); F->record = 0; mct_leave(F); return; }"
    used = {a.name: c.used(a) for a in c.args}
    slot = [4]

    def next_slot():
        slot[0] += 1
        return slot[0]

    if c.hot:
        emit_f_hot(c, w, f08, real_args, used, bail_post)
    w("    if (!mct_enter(F, MC_OP_%s, MCT_RETADDR())) {\n" % c.op)
    w("        real(%s);\n        return;\n    }\n" % orig_args)

    # Inputs (known before the call): scalars, handles, int arrays, handle arrays.
    for a in c.args:
        if not used[a.name]:
            continue
        if a.kind == "int":
            w("    int %s = (int)*f_%s;\n" % (a.name, a.name))
        elif a.kind == "handle":
            w("    %s %s = PMPI_%s_f2c(*f_%s);\n" % (a.base, a.name, HANDLES[a.base], a.name))
        elif a.kind == "intarr":
            w("    const int *%s = (const int *)f_%s;\n" % (a.name, a.name))
    for a in c.args:
        if a.kind == "handlearr" and used[a.name]:
            k = next_slot()
            w("    %s *%s = mct_scratch(%d, (size_t)(%s) * sizeof(%s) + 1);\n"
              % (a.base, a.name, k, a.length, a.base))
            w("    if (!%s)\n        %s\n" % (a.name, bail_pre))
            w("    for (int i_ = 0; i_ < (%s); i_++)\n" % a.length)
            w("        %s[i_] = PMPI_%s_f2c(f_%s[i_]);\n" % (a.name, HANDLES[a.base], a.name))
        elif a.kind == "handleptr" and used[a.name]:
            w("    %s %s_v, *%s = &%s_v;\n" % (a.base, a.name, a.name, a.name))
            if c.pre:
                w("    %s_v = PMPI_%s_f2c(*f_%s);\n" % (a.name, HANDLES[a.base], a.name))
        elif a.kind in ("status", "statusarr"):
            emit_f_status(a, w, "    ", f08, next_slot, bail_pre)
    for line in c.pre:
        w("    %s\n" % line)
    if c.gate:
        w("    if (mct_token_on)\n        mctk_gate(PMPI_Comm_f2c(*f_%s));\n" % c.gate)
    if c.token:
        w("    if (mct_token_on)\n        *ierr = (MPI_Fint)mctf_%s_token(%s);\n    else\n    "
          % (c.name.lower(), ", ".join(a.f_call() for a in c.args)))
    w("    real(%s);\n" % real_args)
    w("    mct_stop(F);\n")
    w("    int rc = (int)*ierr;\n")
    emit_f_outputs(c, w, "    ", used, next_slot, bail_post)
    if c.gate:
        # as on the C path: the exit time is when the rank holds the token again
        w("    if (mct_token_on) {\n        mctk_acquire();\n        mct_stop(F);\n    }\n")
    w("    (void)rc;\n    mct_leave(F);\n}\n")
    if f08:
        w("\n")
        return
    for alias in (lname, lname + "__", lname.upper()):
        w("MCT_EXPORT void %s(%s) __attribute__((alias(\"%s_\")));\n" % (alias, ftypes, lname))
    # Open MPI's mpi_f08 module calls these (same arguments as mpif.h).
    w("#ifdef OPEN_MPI\n")
    w("MCT_EXPORT void ompi_%s_f(%s) __attribute__((alias(\"%s_\")));\n"
      % (c.name.lower(), ftypes, lname))
    w("#endif\n\n")
    if slot[0] >= 12:
        raise SystemExit("%s: too many scratch arrays" % c.name)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    calls = parse(sys.argv[1])
    out = []
    w = out.append
    w("/* Generated by gen_wrappers.py from mpi_calls.def — do not edit. */\n")
    w("#include \"tracer.h\"\n\n")
    w("/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1: gcc's access-attribute\n"
      " * check takes the unsubstituted sentinel for a 0-byte array. */\n")
    w("#pragma GCC diagnostic ignored \"-Wstringop-overflow\"\n\n")
    w("_Static_assert(sizeof(MPI_Fint) == sizeof(int), \"MPI_Fint must be int\");\n\n")
    for c in calls:
        emit_c(c, w)
    w("/* ---------------------------------------------------------------- Fortran */\n\n")
    for c in calls:
        if c.token:
            emit_fortran_token(c, w)
        emit_fortran(c, w)
    w("/* MPICH's mpi_f08 procedures that call PMPI_ directly (those with a\n"
      " * buffer call the C MPI_ functions, which are wrapped already). */\n")
    w("#if defined(MPICH)\n")
    for c in calls:
        if not any(a.kind == "buf" for a in c.args):
            emit_fortran(c, w, f08=True)
    w("#endif\n")
    with open(sys.argv[2], "w") as f:
        f.write("".join(out))


if __name__ == "__main__":
    main()
