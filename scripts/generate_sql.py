#!/usr/bin/env python3
"""The one source of dpagg's SQL surface, and of the C table by which the glue recognises dpagg's
own aggregates.

    python3 scripts/generate_sql.py --sql dpagg--1.0.0.sql --header build/generated/dpagg_functions.h

The aggregates come in many signatures (six value types, with or without a mechanism,
sensitivity or bounds); the table below (KINDS) lists every one of them with the C functions it is
made of, and three things are written from it, so that they cannot disagree:
  - their CREATE FUNCTION / CREATE AGGREGATE statements in the extension script;
  - the REVOKE at the end of the script: PUBLIC may execute none of their support functions;
  - the C header (`--header`) with the table of each kind's transition, combine, final and
    (de)serialisation functions, by which src/pg/aggregates/site.c decides whether an aggregate is dpagg's
    own and whether a plan's transition function is one of dpagg's.
The SQL functions that are not part of an aggregate are hand-written: dp_calibrate and
dp_mechanisms below, src/pg/aggregates/vector.sql, src/pg/labels/protect.sql and src/pg/ledger/budgets.sql (appended; they may not define
aggregates, whose support functions would then be missing from the C table and the REVOKE).

Both outputs are build products: the Makefile writes the script of the current version
(dpagg.control's default_version) as DATA_built (installed by `make install`, removed by `make
clean`) and the header under build/generated/ (included by site.c), and .gitignore lists both.
The one committed copy is the released version's frozen install script in versions/, which
scripts/check_versions.py compares with this generator's output: a change of the surface needs a
new version and its upgrade script (docs/versions.md).  Needs only python3's standard library
(scripts/install-deps.sh installs python3)."""
import argparse
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def version():
    """The extension's current version: dpagg.control's default_version."""
    with open(os.path.join(ROOT, "dpagg.control")) as f:
        m = re.search(r"^default_version = '([^']+)'", f.read(), re.M)
    if not m:
        sys.exit("dpagg.control has no default_version")
    return m.group(1)

TYPES = [("smallint", "int2"), ("integer", "int4"), ("bigint", "int8"),
         ("real", "float4"), ("double precision", "float8"), ("numeric", "numeric")]
F8 = "double precision"


class Function:
    """A C function of the module declared in SQL.  args: (name or "", type) pairs."""

    def __init__(self, name, args, returns, volatility="IMMUTABLE", strict=True, symbol=None):
        self.name, self.args, self.returns = name, args, returns
        self.volatility, self.strict = volatility, strict
        self.symbol, self.explicit_symbol = symbol or name, symbol is not None

    def signature(self):
        return f"{self.name}({', '.join(t for _, t in self.args)})"

    def sql(self):
        args = ", ".join(f"{n} {t}" if n else t for n, t in self.args)
        link = "'MODULE_PATHNAME'" + (f", '{self.symbol}'" if self.explicit_symbol else "")
        return (f"CREATE FUNCTION {self.name}({args}) RETURNS {self.returns}\n"
                f"  AS {link} LANGUAGE C {self.volatility}{' STRICT' if self.strict else ''} PARALLEL SAFE;")


class Aggregate:
    """One signature of an aggregate; sfunc is its transition function (the state comes first).
    final: its final function when it is not the kind's (the report forms)."""

    def __init__(self, name, args, sfunc, comment, final=None):
        self.name, self.args, self.sfunc, self.comment = name, args, sfunc, comment
        self.final = final

    def arglist(self):
        return ", ".join(f"{n} {t}" for n, t in self.args)


class Kind:
    """The aggregates of one kind of site.c (DpSiteKind): one state type, one combine, final,
    serial and deserial function, one transition function per signature."""

    def __init__(self, c_kind, title, stype, combine, final, serial=None, deserial=None, report=None,
                 sspace=None):
        self.c_kind, self.title, self.stype = c_kind, title, stype
        # SSPACE: the bytes of a typical `internal` state, which the planner otherwise takes for
        # 8 KiB, sizing a hash aggregate's groups in memory (and so its spills) by it
        self.sspace = sspace
        self.combine, self.final, self.serial, self.deserial = combine, final, serial, deserial
        # The final function of the kind's report forms (NAME_report: the same transition, one
        # release, returned as a dp_report row with its noise interval), if it has them.
        self.report = report
        self.aggregates = []

    def add(self, name, args, sfunc_name, symbol, comment, named_sfunc_args=True):
        sfunc = Function(sfunc_name, [("", self.stype)] + [(n if named_sfunc_args else "", t)
                                                           for n, t in args],
                         self.stype, strict=False, symbol=symbol)
        self.aggregates.append(Aggregate(name, args, sfunc, comment))
        if self.report:
            self.aggregates.append(Aggregate(name + "_report", args, sfunc,
                                             comment + ", with its noise interval (one release)",
                                             final=self.report))

    def support(self):
        """The support functions other than the transition functions, in declaration order."""
        return [f for f in (self.combine, self.final, self.report, self.serial, self.deserial) if f]

    def functions(self):
        return self.support() + [a.sfunc for a in self.aggregates]

    def trans_symbols(self):
        out = []
        for a in self.aggregates:
            if a.sfunc.symbol not in out:
                out.append(a.sfunc.symbol)
        return out

    def aggregate_sql(self, a):
        options = [f"SFUNC = {a.sfunc.name}", f"STYPE = {self.stype}"]
        if self.sspace:
            options.append(f"SSPACE = {self.sspace}")
        if self.combine:
            options.append(f"COMBINEFUNC = {self.combine.name}")
        if self.serial:
            options += [f"SERIALFUNC = {self.serial.name}", f"DESERIALFUNC = {self.deserial.name}"]
        options += [f"FINALFUNC = {(a.final or self.final).name}", "FINALFUNC_MODIFY = READ_WRITE",
                    "PARALLEL = SAFE"]
        lines, line = [], "  "
        for o in options:
            if len(line) + len(o) > 96:
                lines.append(line.rstrip())
                line = "  "
            line += o + ", "
        lines.append(line[:-2])
        return (f"CREATE AGGREGATE {a.name}({a.arglist()}) (\n" + "\n".join(lines) + "\n);\n"
                f"COMMENT ON AGGREGATE {a.name}({a.arglist()}) IS '{a.comment}';")


# ---- The table ------------------------------------------------------------------------------

EPS_DELTA = [("epsilon", F8), ("delta", F8)]
MECH = [("mechanism", "text")]
STATE2 = [("", "dpagg_state"), ("", "dpagg_state")]

combine = Function("dpagg_combine", STATE2, "dpagg_state")
SUM = Kind("DP_SITE_SUM", "dp_sum: values clamped to [-sensitivity, sensitivity] or to [lower, upper].",
           "dpagg_state", combine,
           Function("dpagg_sum_final", [("", "dpagg_state")], F8, "VOLATILE", strict=False),
           report=Function("dpagg_sum_report_final", [("", "dpagg_state")], "dp_report", "VOLATILE",
                           strict=False))
AVG = Kind("DP_SITE_AVG", "dp_avg: values clamped to [lower, upper]; a noisy sum over a noisy count.",
           "dpagg_state", combine,
           Function("dpagg_avg_final", [("", "dpagg_state")], F8, "VOLATILE", strict=False),
           report=Function("dpagg_avg_report_final", [("", "dpagg_state")], "dp_report", "VOLATILE",
                           strict=False))
# dp_count's state is the count itself, a bigint passed by value like count(*)'s: a hash table of
# a million groups then holds the number in the entry, with no pointer to a separate state to
# follow (src/pg/aggregates/aggregates.c).  Its own combine function (not int8pl), so that site.c recognises
# the aggregate by its support functions alone.
COUNT = Kind("DP_SITE_COUNT", "dp_count: of non-NULL values, or of rows; the state is the count.", "bigint",
             Function("dpagg_count_combine", [("", "bigint"), ("", "bigint")], "bigint"),
             Function("dpagg_count_final", [("", "bigint")], "bigint", "VOLATILE", strict=False),
             report=Function("dpagg_count_report_final", [("", "bigint")], "dp_report", "VOLATILE",
                             strict=False))
VECTOR = Kind("DP_SITE_VECTOR",
              "dp_sum_vector (src/pg/aggregates/vector.c, src/core/mechanisms/l2/l2.h): several sums over the same rows\n"
              "-- released together, each row's vector clipped to an l2 norm bound.", "internal",
              Function("dpagg_vsum_combine", [("", "internal"), ("", "internal")], "internal",
                       strict=False),
              Function("dpagg_vsum_final", [("", "internal")], f"{F8}[]", "VOLATILE", strict=False),
              Function("dpagg_vsum_serialize", [("", "internal")], "bytea"),
              Function("dpagg_vsum_deserialize", [("", "bytea"), ("", "internal")], "internal"))

# dp_sum's signatures: each value type with a sensitivity or bounds (s, b), and a mechanism (m).
SUM_SIGNATURES = []
for sqlt, short in TYPES:
    for form in ["s", "sm", "b", "bm"]:
        args = [("value", sqlt)] + EPS_DELTA
        args += [("sensitivity", F8)] if form[0] == "s" else [("lower", F8), ("upper", F8)]
        if form.endswith("m"):
            args += MECH
        SUM_SIGNATURES.append((sqlt, short, form, args))
for sqlt, short, form, args in SUM_SIGNATURES:
    SUM.add("dp_sum", args, f"dpagg_sum_trans_{short}_{form}", f"dpagg_sum_trans_{short}",
            "differentially private sum of clamped values")
# dp_sum with its state in the group's hash entry (src/pg/aggregates/inline_sum.c): a bigint holding the exact
# sum inline while it fits, and a pointer to a full state past that.  Never named in a query (bound.c
# refuses it): the planner hook puts it in place of dp_sum in a finished plan, only in an Agg node
# that both accumulates and finalizes (a pointer must never leave the process that made it), which
# the lack of a combine function also guarantees.  The same kind as dp_sum: the same site,
# parameters, charge and release.
SUM_INLINE = Kind("DP_SITE_SUM", "dp_sum, planned with its state in the hash entry (src/pg/aggregates/inline_sum.c).",
                  "bigint", None,
                  Function("dpagg_sum_inline_final", [("", "bigint")], F8, "VOLATILE", strict=False))
for sqlt, short, form, args in SUM_SIGNATURES:
    SUM_INLINE.add("dpagg_sum_inline", args, f"dpagg_sum_inline_trans_{short}_{form}",
                   f"dpagg_sum_inline_trans_{short}",
                   "internal: dp_sum as planned with its state in the hash entry (never called directly)")
for sqlt, short in TYPES:
    for form in ["", "_m"]:
        args = [("value", sqlt)] + EPS_DELTA + [("lower", F8), ("upper", F8)] + (MECH if form else [])
        AVG.add("dp_avg", args, f"dpagg_avg_trans_{short}{form}", f"dpagg_avg_trans_{short}",
                "differentially private average of values clamped to [lower, upper]")
for suffix, args, symbol, what in [
        ("v", [("value", '"any"')] + EPS_DELTA, "dpagg_count_trans", "non-NULL values"),
        ("vm", [("value", '"any"')] + EPS_DELTA + MECH, "dpagg_count_trans", "non-NULL values"),
        ("r", EPS_DELTA, "dpagg_count_rows_trans", "rows"),
        ("rm", EPS_DELTA + MECH, "dpagg_count_rows_trans", "rows")]:
    COUNT.add("dp_count", args, f"dpagg_count_trans_{suffix}", symbol,
              f"differentially private count of {what}")
VARGS = [("value", f"{F8}[]"), ("dimension", "integer")] + EPS_DELTA + [("l2_bound", F8)]
VECTOR.add("dp_sum_vector", VARGS, "dpagg_vsum_trans", "dpagg_vsum_trans",
           "differentially private sums of vectors clipped to an l2 norm bound "
           "(Gaussian or l2 mechanism, the better one)", named_sfunc_args=False)
VECTOR.add("dp_sum_vector", VARGS + MECH, "dpagg_vsum_trans_m", "dpagg_vsum_trans",
           "differentially private sums of vectors clipped to an l2 norm bound; "
           "mechanism gaussian, l2 or auto", named_sfunc_args=False)

# The per-unit aggregates over private relations (src/pg/query/bound.c).  Nobody writes them: the planner
# hook rewrites dp_sum, dp_avg and dp_count over a private relation into them, over one row per
# privacy unit and group (at most L groups per unit), and refuses them anywhere else.  Their value
# is the unit's contribution to the group; the parameters are the call's, plus L (and the row cap
# of counts).  Each group is calibrated at (epsilon / L, delta / L).  No combine function: on Citus
# the per-unit rows are gathered on the coordinator, where these run (src/pg/citus/citus.c), and Citus
# would otherwise split them into steps on the workers (the window that samples L groups per
# unit keeps them out of parallel plans anyway).
UNIT_SUM = Kind("DP_SITE_UNIT_SUM", "dpagg_unit_sum: a unit's sum in a group, clamped to [lower, upper] (per unit).",
                "dpagg_state", None,
                Function("dpagg_unit_sum_final", [("", "dpagg_state")], F8, "VOLATILE", strict=False),
                report=Function("dpagg_unit_sum_report_final", [("", "dpagg_state")], "dp_report",
                                "VOLATILE", strict=False))
UNIT_AVG = Kind("DP_SITE_UNIT_AVG", "dpagg_unit_avg: the average of per-unit averages clamped to [lower, upper].",
                "dpagg_state", None,
                Function("dpagg_unit_avg_final", [("", "dpagg_state")], F8, "VOLATILE", strict=False),
                report=Function("dpagg_unit_avg_report_final", [("", "dpagg_state")], "dp_report",
                                "VOLATILE", strict=False))
UNIT_COUNT = Kind("DP_SITE_UNIT_COUNT", "dpagg_unit_count: units, or a unit's rows capped at max_rows_per_group.",
                  "dpagg_state", None,
                  Function("dpagg_unit_count_final", [("", "dpagg_state")], "bigint", "VOLATILE", strict=False),
                  report=Function("dpagg_unit_count_report_final", [("", "dpagg_state")], "dp_report",
                                  "VOLATILE", strict=False))
SELECT = Kind("DP_SITE_SELECT", "dpagg_unit_select: private group selection on the number of units (HAVING).",
              "dpagg_state", None,
              Function("dpagg_unit_select_final", [("", "dpagg_state")], "boolean", "VOLATILE", strict=False))
UNIT_VECTOR = Kind("DP_SITE_UNIT_VECTOR",
                   "dpagg_unit_vsum: a unit's vector sum in a group, clipped to l2_bound (per unit).", "internal",
                   Function("dpagg_unit_vsum_combine", [("", "internal"), ("", "internal")], "internal",
                            strict=False),
                   Function("dpagg_unit_vsum_final", [("", "internal")], f"{F8}[]", "VOLATILE", strict=False),
                   Function("dpagg_vsum_serialize", [("", "internal")], "bytea"),
                   Function("dpagg_vsum_deserialize", [("", "bytea"), ("", "internal")], "internal"))
UNIT_VECTOR.add("dpagg_unit_vsum", VARGS + MECH + [("max_groups", "integer"), ("privacy_unit", "text")], "dpagg_unit_vsum_trans",
                "dpagg_unit_vsum_trans", "internal: dp_sum_vector over a private relation, per unit",
                named_sfunc_args=False)
UNIT = [("privacy_unit", "text")]  # for the ledger: which unit the release is bounded for
UNIT_BOUNDS = EPS_DELTA + [("lower", F8), ("upper", F8)] + MECH + [("max_groups", "integer")] + UNIT
for sqlt, short in [(F8, "float8"), ("numeric", "numeric")]:
    UNIT_SUM.add("dpagg_unit_sum", [("value", sqlt)] + UNIT_BOUNDS, f"dpagg_unit_sum_trans_{short}",
                 f"dpagg_unit_sum_trans_{short}", "internal: dp_sum over a private relation, per unit")
    UNIT_AVG.add("dpagg_unit_avg", [("value", sqlt)] + UNIT_BOUNDS, f"dpagg_unit_avg_trans_{short}",
                 f"dpagg_unit_avg_trans_{short}", "internal: dp_avg over a private relation, per unit")
UNIT_COUNT.add("dpagg_unit_count", [("value", "bigint")] + EPS_DELTA + MECH +
               [("max_groups", "integer"), ("max_rows", "integer")] + UNIT, "dpagg_unit_count_trans",
               "dpagg_unit_count_trans", "internal: dp_count over a private relation, per unit")
SELECT.add("dpagg_unit_select", EPS_DELTA + [("max_groups", "integer"), ("strategy", "text")] + UNIT,
           "dpagg_unit_select_trans", "dpagg_unit_select_trans",
           "internal: private group selection over a private relation")

# The merge of partial states (src/pg/aggregates/partial.c, for Citus: src/pg/citus/citus.c): dp_sum, dp_avg and
# dp_count whose rows are partial states made where the data is; the same call sites, charges and
# releases as theirs.  Positions fixed: partial, epsilon, delta, (lower, upper,) mechanism (NULL:
# dpagg.default_mechanism) (, integer_values).
MERGE_SUM = Kind("DP_SITE_MERGE_SUM", "dpagg_merge_sum: dp_sum over partial states.", "dpagg_state", None,
                 Function("dpagg_merge_sum_final", [("", "dpagg_state")], F8, "VOLATILE", strict=False),
                 report=Function("dpagg_merge_sum_report_final", [("", "dpagg_state")], "dp_report",
                                 "VOLATILE", strict=False))
MERGE_AVG = Kind("DP_SITE_MERGE_AVG", "dpagg_merge_avg: dp_avg over partial states.", "dpagg_state", None,
                 Function("dpagg_merge_avg_final", [("", "dpagg_state")], F8, "VOLATILE", strict=False),
                 report=Function("dpagg_merge_avg_report_final", [("", "dpagg_state")], "dp_report",
                                 "VOLATILE", strict=False))
MERGE_COUNT = Kind("DP_SITE_MERGE_COUNT", "dpagg_merge_count: dp_count over partial states.", "dpagg_state",
                   None, Function("dpagg_merge_count_final", [("", "dpagg_state")], "bigint", "VOLATILE",
                                     strict=False),
                   report=Function("dpagg_merge_count_report_final", [("", "dpagg_state")], "dp_report",
                                   "VOLATILE", strict=False))
QN = [("quanta", "numeric"), ("n", "bigint")]
MERGE_SUM.add("dpagg_merge_sum", QN + EPS_DELTA + [("lower", F8), ("upper", F8)] + MECH +
              [("integer_values", "boolean")], "dpagg_merge_sum_trans", "dpagg_merge_sum_trans",
              "differentially private sum from partial sums of quanta (dp_sum split for Citus)")
MERGE_AVG.add("dpagg_merge_avg", QN + EPS_DELTA + [("lower", F8), ("upper", F8)] + MECH,
              "dpagg_merge_avg_trans", "dpagg_merge_avg_trans",
              "differentially private average from partial sums of quanta (dp_avg split for Citus)")
# The same over the 16-byte partial sums of dpagg_partial_sum and dpagg_partial_avg (the direct form
# on Citus, src/pg/citus/citus.c): the partial in the numeric's place, the positions unchanged.
PN = [("partial", "bytea"), ("n", "bigint")]
MERGE_SUM.add("dpagg_merge_sum", PN + EPS_DELTA + [("lower", F8), ("upper", F8)] + MECH +
              [("integer_values", "boolean")], "dpagg_merge_sum_trans", "dpagg_merge_sum_trans_partial",
              "differentially private sum from partial sums made by dpagg_partial_sum (dp_sum split for Citus)")
MERGE_AVG.add("dpagg_merge_avg", PN + EPS_DELTA + [("lower", F8), ("upper", F8)] + MECH,
              "dpagg_merge_avg_trans", "dpagg_merge_avg_trans_partial",
              "differentially private average from partial sums made by dpagg_partial_avg (dp_avg split for Citus)")
MERGE_COUNT.add("dpagg_merge_count", [("n", "bigint")] + EPS_DELTA + MECH, "dpagg_merge_count_trans",
                "dpagg_merge_count_trans", "differentially private count from partial counts (dp_count split for Citus)")

# dp_sum_vector over partial sums (src/pg/aggregates/vector.c): the same positions as dp_sum_vector, the value
# being a partial sum made by dpagg_vquanta_sum.
MERGE_VECTOR = Kind("DP_SITE_MERGE_VECTOR", "dpagg_merge_vector: dp_sum_vector over partial sums.", "internal",
                    None, Function("dpagg_merge_vsum_final", [("", "internal")], f"{F8}[]", "VOLATILE",
                                   strict=False))
MVARGS = [("partial", "bytea"), ("dimension", "integer")] + EPS_DELTA + [("l2_bound", F8)]
MERGE_VECTOR.add("dpagg_merge_vector", MVARGS, "dpagg_merge_vsum_trans", "dpagg_merge_vsum_trans",
                 "differentially private sums of vectors from partial sums (dp_sum_vector split for Citus)",
                 named_sfunc_args=False)
MERGE_VECTOR.add("dpagg_merge_vector", MVARGS + MECH, "dpagg_merge_vsum_trans_m", "dpagg_merge_vsum_trans",
                 "differentially private sums of vectors from partial sums (dp_sum_vector split for Citus)",
                 named_sfunc_args=False)

# Private quantiles (src/pg/aggregates/percentile.c, src/core/quantile/quantile.h, docs/quantiles.md):
# the state counts values in 1 024 bins of [lower, upper]; the final function releases by
# permute-and-flip.  dp_percentiles is the same kind with a final function returning an array.
Q_SUPPORT = dict(
    combine=Function("dpagg_percentile_combine", [("", "internal"), ("", "internal")], "internal",
                     strict=False),
    serial=Function("dpagg_percentile_serialize", [("", "internal")], "bytea"),
    deserial=Function("dpagg_percentile_deserialize", [("", "bytea"), ("", "internal")], "internal"))
PERCENTILE = Kind("DP_SITE_PERCENTILE",
                  "dp_percentile and dp_median: a private quantile of values counted in 1 024 bins of [lower, upper].",
                  "internal", Q_SUPPORT["combine"],
                  Function("dpagg_percentile_final", [("", "internal")], F8, "VOLATILE", strict=False),
                  Q_SUPPORT["serial"], Q_SUPPORT["deserial"], sspace=128)
PERCENTILES = Kind("DP_SITE_PERCENTILE",
                   "dp_percentiles: several private quantiles released together (each at epsilon / k).",
                   "internal", Q_SUPPORT["combine"],
                   Function("dpagg_percentiles_final", [("", "internal")], f"{F8}[]", "VOLATILE", strict=False),
                   Q_SUPPORT["serial"], Q_SUPPORT["deserial"], sspace=128)
Q_BOUNDS = EPS_DELTA + [("lower", F8), ("upper", F8)]
# Over a private relation (src/pg/query/bound.c): the same over one value per unit and group, the
# unit's average there, each group at epsilon / L (no combine: the per-unit level is not split).
UNIT_PERCENTILE = Kind("DP_SITE_UNIT_PERCENTILE",
                       "dpagg_unit_percentile and dpagg_unit_median: a private quantile of per-unit averages.",
                       "internal", None,
                       Function("dpagg_unit_percentile_final", [("", "internal")], F8, "VOLATILE", strict=False),
                       sspace=128)
UNIT_PERCENTILES = Kind("DP_SITE_UNIT_PERCENTILE",
                        "dpagg_unit_percentiles: several private quantiles of per-unit averages.",
                        "internal", None,
                        Function("dpagg_unit_percentiles_final", [("", "internal")], f"{F8}[]", "VOLATILE",
                                 strict=False),
                        sspace=128)
UNIT_Q = EPS_DELTA + [("lower", F8), ("upper", F8), ("mechanism", "text"), ("max_groups", "integer"),
                      ("privacy_unit", "text")]
UNIT_PERCENTILE.add("dpagg_unit_percentile", [("value", F8), ("p", F8)] + UNIT_Q,
                    "dpagg_unit_percentile_trans", "dpagg_unit_percentile_trans",
                    "internal: dp_percentile over a private relation, per unit")
UNIT_PERCENTILE.add("dpagg_unit_median", [("value", F8)] + UNIT_Q,
                    "dpagg_unit_median_trans", "dpagg_unit_percentile_trans",
                    "internal: dp_median over a private relation, per unit")
UNIT_PERCENTILES.add("dpagg_unit_percentiles", [("value", F8), ("p", f"{F8}[]")] + UNIT_Q,
                     "dpagg_unit_percentiles_trans", "dpagg_unit_percentile_trans",
                     "internal: dp_percentiles over a private relation, per unit")
for sqlt, short in TYPES:
    for form, extra in [("", []), ("_m", MECH)]:
        PERCENTILE.add("dp_percentile", [("value", sqlt), ("p", F8)] + Q_BOUNDS + extra,
                       f"dpagg_percentile_trans_{short}{form}", f"dpagg_percentile_trans_{short}",
                       "differentially private p-quantile of values in [lower, upper] (permute-and-flip)")
        PERCENTILE.add("dp_median", [("value", sqlt)] + Q_BOUNDS + extra,
                       f"dpagg_median_trans_{short}{form}", f"dpagg_percentile_trans_{short}",
                       "differentially private median of values in [lower, upper] (permute-and-flip)")
        PERCENTILES.add("dp_percentiles", [("value", sqlt), ("p", f"{F8}[]")] + Q_BOUNDS + extra,
                        f"dpagg_percentiles_trans_{short}{form}", f"dpagg_percentile_trans_{short}",
                        "differentially private quantiles of values in [lower, upper], released together")

# Private quantiles without bounds (src/pg/aggregates/percentile.c, src/core/bounds/dpagg_bounds.h,
# docs/automatic_bounds.md): the state counts values in a grid of magnitudes (32 cells per power of
# two); the final function finds the range from a noisy histogram of magnitudes (half of epsilon)
# and releases by permute-and-flip over the cells inside it (the rest).
AUTO_PERCENTILE = Kind("DP_SITE_AUTO_PERCENTILE",
                       "dp_percentile and dp_median without bounds: the range found privately (half of epsilon), then permute-and-flip over a grid of magnitudes.",
                       "internal",
                       Function("dpagg_auto_percentile_combine", [("", "internal"), ("", "internal")], "internal",
                                strict=False),
                       Function("dpagg_auto_percentile_final", [("", "internal")], F8, "VOLATILE", strict=False),
                       Q_SUPPORT["serial"], Q_SUPPORT["deserial"], sspace=128)
AUTO_PERCENTILES = Kind("DP_SITE_AUTO_PERCENTILE",
                        "dp_percentiles without bounds: several private quantiles released together.",
                        "internal", AUTO_PERCENTILE.combine,
                        Function("dpagg_auto_percentiles_final", [("", "internal")], f"{F8}[]", "VOLATILE",
                                 strict=False),
                        Q_SUPPORT["serial"], Q_SUPPORT["deserial"], sspace=128)
for sqlt, short in TYPES:
    AUTO_PERCENTILE.add("dp_percentile", [("value", sqlt), ("p", F8)] + EPS_DELTA,
                        f"dpagg_auto_percentile_trans_{short}", f"dpagg_auto_percentile_trans_{short}",
                        "differentially private p-quantile, its range found privately (half of epsilon) from the data")
    AUTO_PERCENTILE.add("dp_median", [("value", sqlt)] + EPS_DELTA,
                        f"dpagg_auto_median_trans_{short}", f"dpagg_auto_percentile_trans_{short}",
                        "differentially private median, its range found privately (half of epsilon) from the data")
    AUTO_PERCENTILES.add("dp_percentiles", [("value", sqlt), ("p", f"{F8}[]")] + EPS_DELTA,
                         f"dpagg_auto_percentiles_trans_{short}", f"dpagg_auto_percentile_trans_{short}",
                         "differentially private quantiles released together, their range found privately (half of epsilon) from the data")

# Private variances and standard deviations (src/pg/aggregates/variance.c,
# src/core/variance/dpagg_variance.h, docs/variance.md): the state is a count and two exact sums
# (of the centred values and of their centred squares); the final function releases the three
# and returns the statistic.  One kind per form (they differ in their final functions only), all
# of site.c's DP_SITE_VARIANCE, sharing their transition, combine and (de)serialisation functions.
V_SUPPORT = dict(
    combine=Function("dpagg_variance_combine", [("", "internal"), ("", "internal")], "internal",
                     strict=False),
    serial=Function("dpagg_variance_serialize", [("", "internal")], "bytea"),
    deserial=Function("dpagg_variance_deserialize", [("", "bytea"), ("", "internal")], "internal"))
VARIANCE_KINDS = []
# Over a private relation (src/pg/query/bound.c): the same over one value per unit and group, the
# unit's average there, each group at epsilon / L (no combine: the per-unit level is not split).
UNIT_VARIANCE_KINDS = []
for vform, what in [("var_pop", "population variance"), ("var_samp", "sample variance"),
                    ("stddev_pop", "population standard deviation"),
                    ("stddev_samp", "sample standard deviation")]:
    vkind = Kind("DP_SITE_VARIANCE",
                 f"dp_{vform}: the {what} of values clamped to [lower, upper], from a noisy count, sum and sum of squares.",
                 "internal", V_SUPPORT["combine"],
                 Function(f"dpagg_{vform}_final", [("", "internal")], F8, "VOLATILE", strict=False),
                 V_SUPPORT["serial"], V_SUPPORT["deserial"],
                 report=Function(f"dpagg_{vform}_report_final", [("", "internal")], "dp_report", "VOLATILE",
                                 strict=False),
                 sspace=64)
    for sqlt, short in TYPES:
        for form, extra in [("", []), ("_m", MECH)]:
            vkind.add(f"dp_{vform}", [("value", sqlt)] + Q_BOUNDS + extra,
                      f"dpagg_variance_trans_{short}{form}", f"dpagg_variance_trans_{short}",
                      f"differentially private {what} of values clamped to [lower, upper]")
    VARIANCE_KINDS.append(vkind)
    ukind = Kind("DP_SITE_UNIT_VARIANCE",
                 f"dpagg_unit_{vform}: the {what} of per-unit averages clamped to [lower, upper].",
                 "internal", None,
                 Function(f"dpagg_unit_{vform}_final", [("", "internal")], F8, "VOLATILE", strict=False),
                 report=Function(f"dpagg_unit_{vform}_report_final", [("", "internal")], "dp_report",
                                 "VOLATILE", strict=False),
                 sspace=64)
    ukind.add(f"dpagg_unit_{vform}", [("value", F8)] + UNIT_BOUNDS, "dpagg_unit_variance_trans",
              "dpagg_unit_variance_trans", f"internal: dp_{vform} over a private relation, per unit")
    UNIT_VARIANCE_KINDS.append(ukind)

# dp_sum without bounds (src/pg/aggregates/auto_bounds.c, src/core/bounds/dpagg_bounds.h,
# docs/automatic_bounds.md): the state counts and sums the values per bin of magnitude; the final
# function chooses the bounds from a noisy histogram of them and releases the clamped sum.
AUTO_SUM = Kind("DP_SITE_AUTO_SUM",
                "dp_sum without bounds: the bounds chosen privately from a histogram of magnitudes (half of epsilon).",
                "internal",
                Function("dpagg_auto_sum_combine", [("", "internal"), ("", "internal")], "internal", strict=False),
                Function("dpagg_auto_sum_final", [("", "internal")], F8, "VOLATILE", strict=False),
                Function("dpagg_auto_sum_serialize", [("", "internal")], "bytea"),
                Function("dpagg_auto_sum_deserialize", [("", "bytea"), ("", "internal")], "internal"),
                sspace=128)
AUTO_AVG = Kind("DP_SITE_AUTO_SUM",
                "dp_avg without bounds: the bounds chosen privately from a histogram of magnitudes (half of epsilon).",
                "internal", AUTO_SUM.combine,
                Function("dpagg_auto_avg_final", [("", "internal")], F8, "VOLATILE", strict=False),
                AUTO_SUM.serial, AUTO_SUM.deserial, sspace=128)
for sqlt, short in TYPES:
    AUTO_SUM.add("dp_sum", [("value", sqlt)] + EPS_DELTA, f"dpagg_auto_sum_trans_{short}",
                 f"dpagg_auto_sum_trans_{short}",
                 "differentially private sum, its clamping bounds chosen privately (half of epsilon) from the data")
    AUTO_AVG.add("dp_avg", [("value", sqlt)] + EPS_DELTA, f"dpagg_auto_sum_trans_{short}",
                 f"dpagg_auto_sum_trans_{short}",
                 "differentially private average, its clamping bounds chosen privately (half of epsilon) from the data")

# The variances without bounds (src/pg/aggregates/auto_variance.c, docs/automatic_bounds.md): the
# state of dp_sum without bounds with each bin's sum of squares too; the final function chooses
# the range from the noisy histogram (not widened to 0) and releases the variance clamped to it
# as the bounded variance does.  One kind per form (they differ in their final functions only),
# all of site.c's DP_SITE_AUTO_VARIANCE, sharing their transition, combine and (de)serialisation.
AV_SUPPORT = dict(
    combine=Function("dpagg_auto_var_combine", [("", "internal"), ("", "internal")], "internal", strict=False),
    serial=Function("dpagg_auto_var_serialize", [("", "internal")], "bytea"),
    deserial=Function("dpagg_auto_var_deserialize", [("", "bytea"), ("", "internal")], "internal"))
AUTO_VARIANCE_KINDS = []
for vform, what in [("var_pop", "population variance"), ("var_samp", "sample variance"),
                    ("stddev_pop", "population standard deviation"),
                    ("stddev_samp", "sample standard deviation")]:
    avkind = Kind("DP_SITE_AUTO_VARIANCE",
                  f"dp_{vform} without bounds: the range chosen privately from a histogram of magnitudes (half of epsilon).",
                  "internal", AV_SUPPORT["combine"],
                  Function(f"dpagg_auto_{vform}_final", [("", "internal")], F8, "VOLATILE", strict=False),
                  AV_SUPPORT["serial"], AV_SUPPORT["deserial"], sspace=368)
    for sqlt, short in TYPES:
        avkind.add(f"dp_{vform}", [("value", sqlt)] + EPS_DELTA, f"dpagg_auto_var_trans_{short}",
                   f"dpagg_auto_var_trans_{short}",
                   f"differentially private {what}, its clamping range chosen privately (half of epsilon) from the data")
    AUTO_VARIANCE_KINDS.append(avkind)

# ... over a private relation (src/pg/query/bound.c): the same over one value per unit and group
# (its total for dp_sum, its average for dp_avg and the variances), each group at
# (epsilon / L, delta / L); no combine: the per-unit level is not split.
UNIT_AUTO = EPS_DELTA + [("max_groups", "integer")] + UNIT
UNIT_AUTO_KINDS = []
for uname, ufinal, ukind, trans, what in (
        [("dpagg_unit_auto_sum", "dpagg_unit_auto_sum_final", "DP_SITE_UNIT_AUTO_SUM",
          "dpagg_unit_auto_sum_trans", "dp_sum"),
         ("dpagg_unit_auto_avg", "dpagg_unit_auto_avg_final", "DP_SITE_UNIT_AUTO_SUM",
          "dpagg_unit_auto_sum_trans", "dp_avg")]
        + [(f"dpagg_unit_auto_{v}", f"dpagg_unit_auto_{v}_final", "DP_SITE_UNIT_AUTO_VARIANCE",
            "dpagg_unit_auto_var_trans", f"dp_{v}")
           for v in ("var_pop", "var_samp", "stddev_pop", "stddev_samp")]):
    k = Kind(ukind, f"{uname}: {what} without bounds of per-unit values.", "internal", None,
             Function(ufinal, [("", "internal")], F8, "VOLATILE", strict=False),
             sspace=368 if "VARIANCE" in ukind else 128)
    k.add(uname, [("value", F8)] + UNIT_AUTO, f"{uname}_trans", trans,
          f"internal: {what} without bounds over a private relation, per unit")
    UNIT_AUTO_KINDS.append(k)

# The variances over partial sums (src/pg/aggregates/variance.c, for Citus: src/pg/citus/citus.c):
# dp_var_pop and its sibling forms whose rows are partial sums made where the data is, the
# squares', the sum's and the count, sum(dpagg_quanta_var_squares(...)), sum(dpagg_quanta_var(...))
# and count(x); the same call sites, charges and releases as theirs.  One kind per form (they differ
# in their final functions only), all of site.c's DP_SITE_MERGE_VARIANCE, sharing their transition
# function; no combine: Citus cannot split them.  Positions fixed: squares, sum, n, epsilon, delta,
# lower, upper, mechanism (NULL: dpagg.default_mechanism).
MERGE_VARIANCE_KINDS = []
for vform, what in [("var_pop", "population variance"), ("var_samp", "sample variance"),
                    ("stddev_pop", "population standard deviation"),
                    ("stddev_samp", "sample standard deviation")]:
    mvkind = Kind("DP_SITE_MERGE_VARIANCE", f"dpagg_merge_{vform}: dp_{vform} over partial sums.", "internal", None,
                  Function(f"dpagg_merge_{vform}_final", [("", "internal")], F8, "VOLATILE", strict=False),
                  report=Function(f"dpagg_merge_{vform}_report_final", [("", "internal")], "dp_report",
                                  "VOLATILE", strict=False),
                  sspace=64)
    mvkind.add(f"dpagg_merge_{vform}", [("squares", "numeric"), ("sum", "numeric"), ("n", "bigint")] + EPS_DELTA
               + [("lower", F8), ("upper", F8)] + MECH, "dpagg_merge_variance_trans", "dpagg_merge_variance_trans",
               f"differentially private {what} from partial sums of quanta (dp_{vform} split for Citus)")
    MERGE_VARIANCE_KINDS.append(mvkind)

# The quantiles over partial counts (src/pg/aggregates/percentile.c, for Citus: src/pg/citus/citus.c):
# dp_percentile, dp_median and dp_percentiles whose rows are a group's values counted per bin where
# the data is, dpagg_quantile_bin(x, lower, upper) (without bounds: dpagg_quantile_cell(x)) and
# count(x) grouped by it; the same call sites, charges and releases as theirs.  site.c's
# DP_SITE_MERGE_PERCENTILE; no combine: Citus cannot split them.  Positions fixed: bin, n [, p or
# ps], epsilon, delta, lower, upper (both NULL: without bounds), mechanism (NULL: omitted).
MQ_ARGS = EPS_DELTA + [("lower", F8), ("upper", F8)] + MECH
MERGE_PERCENTILE = Kind("DP_SITE_MERGE_PERCENTILE",
                        "dpagg_merge_percentile and dpagg_merge_median: dp_percentile and dp_median over partial counts of bins.",
                        "internal", None,
                        Function("dpagg_merge_percentile_final", [("", "internal")], F8, "VOLATILE", strict=False),
                        sspace=128)
MERGE_PERCENTILES = Kind("DP_SITE_MERGE_PERCENTILE",
                         "dpagg_merge_percentiles: dp_percentiles over partial counts of bins.",
                         "internal", None,
                         Function("dpagg_merge_percentiles_final", [("", "internal")], f"{F8}[]", "VOLATILE",
                                  strict=False),
                         sspace=128)
MERGE_PERCENTILE.add("dpagg_merge_percentile", [("bin", "integer"), ("n", "bigint"), ("p", F8)] + MQ_ARGS,
                     "dpagg_merge_percentile_trans", "dpagg_merge_percentile_trans",
                     "differentially private p-quantile from partial counts of bins (dp_percentile split for Citus)")
MERGE_PERCENTILE.add("dpagg_merge_median", [("bin", "integer"), ("n", "bigint")] + MQ_ARGS,
                     "dpagg_merge_median_trans", "dpagg_merge_percentile_trans",
                     "differentially private median from partial counts of bins (dp_median split for Citus)")
MERGE_PERCENTILES.add("dpagg_merge_percentiles", [("bin", "integer"), ("n", "bigint"), ("p", f"{F8}[]")] + MQ_ARGS,
                      "dpagg_merge_percentiles_trans", "dpagg_merge_percentile_trans",
                      "differentially private quantiles from partial counts of bins (dp_percentiles split for Citus)")

# dp_sum, dp_avg and the variances without bounds over partial sums per bin (src/pg/aggregates/
# auto_bounds.c, auto_variance.c; for Citus: src/pg/citus/citus.c): the rows are a group's values
# counted and summed per bin of magnitude where the data is, dpagg_auto_bin(x), count(x),
# sum(dpagg_auto_quanta(x)) (and sum(dpagg_auto_square_quanta(x))) grouped by the bin; the same
# state, call sites, charges and releases as theirs.  site.c's DP_SITE_MERGE_AUTO_SUM and
# DP_SITE_MERGE_AUTO_VARIANCE; no combine: Citus cannot split them.  Positions fixed: bin, n, s
# [, squares], epsilon, delta.
MA_ARGS = [("bin", "integer"), ("n", "bigint"), ("s", "numeric")]
MERGE_AUTO_KINDS = []
for mname, what in [("sum", "sum"), ("avg", "average")]:
    mk = Kind("DP_SITE_MERGE_AUTO_SUM", f"dpagg_merge_auto_{mname}: dp_{mname} without bounds over partial sums per bin.",
              "internal", None,
              Function(f"dpagg_merge_auto_{mname}_final", [("", "internal")], F8, "VOLATILE", strict=False),
              sspace=128)
    mk.add(f"dpagg_merge_auto_{mname}", MA_ARGS + EPS_DELTA, "dpagg_merge_auto_sum_trans",
           "dpagg_merge_auto_sum_trans",
           f"differentially private {what} without bounds from partial sums per bin (dp_{mname} split for Citus)")
    MERGE_AUTO_KINDS.append(mk)
for vform, what in [("var_pop", "population variance"), ("var_samp", "sample variance"),
                    ("stddev_pop", "population standard deviation"),
                    ("stddev_samp", "sample standard deviation")]:
    mk = Kind("DP_SITE_MERGE_AUTO_VARIANCE",
              f"dpagg_merge_auto_{vform}: dp_{vform} without bounds over partial sums per bin.", "internal", None,
              Function(f"dpagg_merge_auto_{vform}_final", [("", "internal")], F8, "VOLATILE", strict=False),
              sspace=368)
    mk.add(f"dpagg_merge_auto_{vform}", MA_ARGS + [("squares", "numeric")] + EPS_DELTA,
           "dpagg_merge_auto_var_trans", "dpagg_merge_auto_var_trans",
           f"differentially private {what} without bounds from partial sums per bin (dp_{vform} split for Citus)")
    MERGE_AUTO_KINDS.append(mk)

KINDS = [SUM, SUM_INLINE, AVG, COUNT, VECTOR, UNIT_SUM, UNIT_AVG, UNIT_COUNT, SELECT, UNIT_VECTOR,
         MERGE_SUM, MERGE_AVG, MERGE_COUNT, MERGE_VECTOR, PERCENTILE, PERCENTILES] + VARIANCE_KINDS + UNIT_VARIANCE_KINDS + [UNIT_PERCENTILE, UNIT_PERCENTILES, AUTO_SUM, AUTO_AVG, AUTO_PERCENTILE, AUTO_PERCENTILES] + AUTO_VARIANCE_KINDS + UNIT_AUTO_KINDS + MERGE_VARIANCE_KINDS + [MERGE_PERCENTILE, MERGE_PERCENTILES] + MERGE_AUTO_KINDS

# One row's quanta (src/pg/aggregates/partial.c): plain functions, summed with sum(bigint) on Citus workers.
QUANTA = [(f"dpagg_quanta_{what}", sqlt, f"dpagg_quanta_{what}_{short}")
          for what in ("sum", "avg") for sqlt, short in TYPES]
# ... and the variances' (src/pg/aggregates/variance.c): a value's centred quanta and those of its
# centred square, as dp_var_pop's state adds them.
VQUANTA = [(f"dpagg_quanta_{what}", sqlt, f"dpagg_quanta_{what}_{short}")
           for what in ("var", "var_squares") for sqlt, short in TYPES]
# ... and the quantiles' (src/pg/aggregates/percentile.c): a value's bin of [lower, upper], or its
# cell of the grid of magnitudes without bounds, as dp_percentile's state counts it.
QBINS = [(f"dpagg_quantile_bin_{short}", sqlt) for sqlt, short in TYPES]


QBIN_COMMENT = """-- One row's bin as dp_percentile's state counts it (of [lower, upper], or without bounds its cell of
-- the grid of magnitudes; src/pg/aggregates/percentile.c): Citus's workers group by it and count
-- for dpagg_merge_percentile and its sibling forms."""

AROW_COMMENT = """-- One row as dp_sum's state without bounds adds it (src/pg/aggregates/auto_bounds.c): its bin of
-- magnitude, its value in the bin's quanta and its square in the bin's square quanta.  Citus's
-- workers group by the bin, count and sum them for dpagg_merge_auto_sum and its sibling forms."""


def quanta_sql():
    out = ["""-- One row's contribution to dp_sum's (dp_avg's) exact sum, in its quanta (src/pg/aggregates/partial.c):
-- Citus sums them with sum(bigint) on the workers for dpagg_merge_sum and dpagg_merge_avg."""]
    for name, sqlt, sym in QUANTA:
        out.append(f"CREATE FUNCTION {name}(value {sqlt}, lower double precision, upper double precision)"
                   f" RETURNS bigint\n  AS 'MODULE_PATHNAME', '{sym}' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;")
    out.append("""-- One row's contribution to dp_var_pop's exact sums (the centred value's and its centred square's
-- quanta; src/pg/aggregates/variance.c): Citus sums them with sum(bigint) on the workers for
-- dpagg_merge_var_pop and its sibling forms.""")
    for name, sqlt, sym in VQUANTA:
        out.append(f"CREATE FUNCTION {name}(value {sqlt}, lower double precision, upper double precision)"
                   f" RETURNS bigint\n  AS 'MODULE_PATHNAME', '{sym}' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;")
    out.append(QBIN_COMMENT)
    for sym, sqlt in QBINS:
        out.append(f"CREATE FUNCTION dpagg_quantile_bin(value {sqlt}, lower double precision, upper double precision)"
                   f" RETURNS integer\n  AS 'MODULE_PATHNAME', '{sym}' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;")
    for sym, sqlt in QBINS:
        out.append(f"CREATE FUNCTION dpagg_quantile_cell(value {sqlt}) RETURNS integer\n"
                   f"  AS 'MODULE_PATHNAME', '{sym.replace('_bin_', '_cell_')}' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;")
    out.append(AROW_COMMENT)
    for sqlt, short in TYPES:
        for fn, rt in (("bin", "integer"), ("quanta", "bigint"), ("square_quanta", "bigint")):
            out.append(f"CREATE FUNCTION dpagg_auto_{fn}(value {sqlt}) RETURNS {rt}\n"
                       f"  AS 'MODULE_PATHNAME', 'dpagg_auto_{fn}_{short}' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;")
    out.append("""-- The same exact sum as sum(dpagg_quanta_sum(...)) (_avg), a numeric, in one call per row: what a
-- node plans that sum as over its own tables (a Citus worker's shard query, src/pg/aggregates/partial.c).
CREATE FUNCTION dpagg_quanta_total_final(internal) RETURNS numeric
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_total_count(internal) RETURNS bigint
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_total_combine(internal, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_total_serialize(internal) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_quanta_total_deserialize(bytea, internal) RETURNS internal
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;""")
    for what in ("sum", "avg"):
        for sqlt, short in TYPES:
            out.append(f"CREATE FUNCTION dpagg_quanta_{what}_total_trans(internal, {sqlt}, double precision, double precision)"
                       f" RETURNS internal\n  AS 'MODULE_PATHNAME', 'dpagg_quanta_{what}_total_trans_{short}'"
                       " LANGUAGE C IMMUTABLE PARALLEL SAFE;")
            out.append(f"CREATE AGGREGATE dpagg_quanta_{what}_total(value {sqlt}, lower double precision, upper double precision) (\n"
                       f"  SFUNC = dpagg_quanta_{what}_total_trans, STYPE = internal, FINALFUNC = dpagg_quanta_total_final,\n"
                       "  COMBINEFUNC = dpagg_quanta_total_combine, SERIALFUNC = dpagg_quanta_total_serialize,\n"
                       "  DESERIALFUNC = dpagg_quanta_total_deserialize, PARALLEL = SAFE\n);")
        for sqlt, short in TYPES:
            out.append(f"CREATE AGGREGATE dpagg_quanta_{what}_total_count(value {sqlt}, lower double precision, upper double precision) (\n"
                       f"  SFUNC = dpagg_quanta_{what}_total_trans, STYPE = internal, FINALFUNC = dpagg_quanta_total_count,\n"
                       "  COMBINEFUNC = dpagg_quanta_total_combine, SERIALFUNC = dpagg_quanta_total_serialize,\n"
                       "  DESERIALFUNC = dpagg_quanta_total_deserialize, PARALLEL = SAFE\n);")
        out.append(f"COMMENT ON AGGREGATE dpagg_quanta_{what}_total(double precision, double precision, double precision) IS\n"
                   f"  'exact sum of dpagg_quanta_{what}(value, lower, upper), as sum() of it gives, in one call per row';")
        out.append(f"COMMENT ON AGGREGATE dpagg_quanta_{what}_total_count(double precision, double precision, double precision) IS\n"
                   f"  'values dpagg_quanta_{what}_total counts (count(value) with non-NULL bounds), sharing its transition';")
    out.append("""-- The exact sum of the rows' quanta above as one aggregate, a 16-byte bytea (a 128-bit integer,
-- most significant byte first): the partial sums of the direct form on Citus (src/pg/citus/citus.c),
-- cheaper to make, send and read than sum(bigint)'s numeric; the transition is the one above.
CREATE FUNCTION dpagg_partial_final(internal) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;""")
    for what in ("sum", "avg"):
        for sqlt, short in TYPES:
            out.append(f"CREATE AGGREGATE dpagg_partial_{what}(value {sqlt}, lower double precision, upper double precision) (\n"
                       f"  SFUNC = dpagg_quanta_{what}_total_trans, STYPE = internal, FINALFUNC = dpagg_partial_final,\n"
                       "  COMBINEFUNC = dpagg_quanta_total_combine, SERIALFUNC = dpagg_quanta_total_serialize,\n"
                       "  DESERIALFUNC = dpagg_quanta_total_deserialize, PARALLEL = SAFE\n);")
        out.append(f"COMMENT ON AGGREGATE dpagg_partial_{what}(double precision, double precision, double precision) IS\n"
                   f"  'exact sum of dpagg_quanta_{what}(value, lower, upper) as a 16-byte integer (partial sums for dpagg_merge_{what})';")
    out.append("""-- Its argument, unchanged: a group key of the partial sums that Citus does not trace back to the
-- distribution column, so that it leaves the merge on the coordinator (src/pg/citus/citus.c).
CREATE FUNCTION dpagg_group_key(key anyelement) RETURNS anyelement
  AS 'MODULE_PATHNAME', 'dpagg_group_key' LANGUAGE C IMMUTABLE PARALLEL SAFE;
-- Worker-side releases on Citus (src/pg/citus/citus_grant.c, docs/citus.md): the qual that carries the
-- coordinator's grant to the shard queries (true; the grant is checked when a query starts), and
-- the coordinator's one-time filter above a query released on the workers.
CREATE FUNCTION dpagg_citus_grant(grant_text text) RETURNS boolean
  AS 'MODULE_PATHNAME', 'dpagg_citus_grant' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_citus_release(grant_text text, template text) RETURNS boolean
  AS 'MODULE_PATHNAME', 'dpagg_citus_release' LANGUAGE C VOLATILE;
-- On a server that started in recovery (a standby, a clone, a restored backup), which refuses
-- Citus grants: a superuser's word that it serves shards of its own now.
CREATE FUNCTION dpagg_citus_grants_resume() RETURNS void
  AS 'MODULE_PATHNAME', 'dpagg_citus_grants_resume' LANGUAGE C VOLATILE;
REVOKE ALL ON FUNCTION dpagg_citus_grants_resume() FROM PUBLIC;
-- The rows' vectors clipped to the l2 bound and summed exactly in the quanta dp_sum_vector's own
-- state adds, with their number (src/pg/aggregates/vector.c): the partial sums of dpagg_merge_vector.
CREATE FUNCTION dpagg_vquanta_trans(bytea, double precision[], integer, double precision) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_vquanta_combine(bytea, bytea) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_vquanta_sum(value double precision[], dimension integer, l2_bound double precision) (
  SFUNC = dpagg_vquanta_trans, STYPE = bytea, COMBINEFUNC = dpagg_vquanta_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_vquanta_sum(double precision[], integer, double precision) IS
  'exact sum of vectors clipped to an l2 bound, in dp_sum_vector''s quanta (partial sums for dpagg_merge_vector)';""")
    return "\n".join(out) + "\n"


# ---- The extension script -------------------------------------------------------------------

HEADER = r"""-- dpagg @VERSION@: differentially private aggregates.  Generated by scripts/generate_sql.py (make);
-- edit that, or src/pg/aggregates/vector.sql, src/pg/labels/protect.sql and src/pg/ledger/budgets.sql, not this file.
\echo Use "CREATE EXTENSION dpagg" to load this file. \quit

-- dpagg needs to be loaded when the server starts (its ledger lives in shared memory, and it
-- checks restricted roles in every backend): without it, creating the extension fails here with
-- 55000 and a hint (src/pg/labels/preload.c).
CREATE FUNCTION dpagg_require_preload() RETURNS void
  AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
SELECT dpagg_require_preload();

-- The state of dp_sum and dp_avg (and of the per-unit and merge forms; dp_count's state is its
-- count, a bigint): a 32-byte varlena holding data only, the count, an
-- exact 128-bit fixed-point sum and whether (and what) was released (src/pg/aggregates/aggregates.c).  The
-- privacy parameters are not in it: they belong to the call site and are read once per query
-- (src/pg/aggregates/site.c).  It holds no pointers or OIDs, so PostgreSQL copies it between parallel
-- workers as it is.  Its text and binary forms (INPUT/OUTPUT, SEND/RECEIVE) carry the data; a
-- state read in is marked as not released.
CREATE TYPE dpagg_state;
CREATE FUNCTION dpagg_state_in(cstring) RETURNS dpagg_state
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_state_out(dpagg_state) RETURNS cstring
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_state_recv(internal) RETURNS dpagg_state
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpagg_state_send(dpagg_state) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE dpagg_state (
  INPUT = dpagg_state_in, OUTPUT = dpagg_state_out,
  RECEIVE = dpagg_state_recv, SEND = dpagg_state_send,
  INTERNALLENGTH = VARIABLE, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE dpagg_state IS 'transition state of the dpagg aggregates (internal use)';

-- What the report forms of the aggregates (dp_sum_report, dp_avg_report, dp_count_report) return:
-- the released value and an interval that holds the true answer with probability at least
-- `confidence` (docs/intervals.md: the noise only, not the bias of clamping), with what it was
-- released under.  epsilon and delta are the whole release's; noise_scale is the scale of the
-- noise of its (first) part.
CREATE TYPE dp_report AS (
  value double precision, ci_low double precision, ci_high double precision,
  confidence double precision, mechanism text, epsilon double precision,
  delta double precision, noise_scale double precision
);
COMMENT ON TYPE dp_report IS 'a differentially private release with its noise interval';

-- The aggregates.  The final functions add the noise and are VOLATILE.  The support functions
-- run only inside an aggregate, the transition, combine and final functions only inside dpagg's
-- own aggregates (src/pg/aggregates/site.c), and PUBLIC may execute none of them (the end of this script).
"""

FOOTER = """-- Calibration without release.
CREATE FUNCTION dp_calibrate(
    mechanism text, epsilon double precision, delta double precision,
    sensitivity double precision DEFAULT 1.0, integer_valued boolean DEFAULT false,
    OUT mechanism_name text, OUT scale double precision, OUT l1 double precision,
    OUT l2 double precision, OUT rho double precision, OUT details jsonb)
  AS 'MODULE_PATHNAME', 'dpagg_calibrate_sql' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_calibrate(text, double precision, double precision, double precision, boolean) IS
  'calibrate a mechanism (scale, expected absolute and squared error of its noise, zCDP rho where it holds); releases nothing';

-- Accuracy without release: the half-width w of the interval [v - w, v + w] that holds the true
-- answer with probability at least `confidence` for a release v of these parameters (the noise
-- and the release grid; docs/intervals.md).  Releases nothing, spends nothing.
CREATE FUNCTION dp_noise_interval(
    mechanism text, epsilon double precision, delta double precision,
    sensitivity double precision DEFAULT 1.0, confidence double precision DEFAULT 0.95,
    integer_valued boolean DEFAULT false)
  RETURNS double precision
  AS 'MODULE_PATHNAME', 'dpagg_noise_interval_sql' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_noise_interval(text, double precision, double precision, double precision, double precision, boolean) IS
  'half-width of the noise interval of a release with these parameters at this confidence; releases nothing';

-- The versions of dpagg here: the library's (what the server loaded) and its SQL objects' in this
-- database (pg_extension).  While they differ, every release is refused with a hint to run ALTER
-- EXTENSION dpagg UPDATE (docs/versions.md).  New in 1.0.0.
CREATE FUNCTION dp_version(OUT library text, OUT sql_objects text)
  AS 'MODULE_PATHNAME', 'dpagg_version_sql' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_version() IS
  'the versions of the dpagg library loaded and of its SQL objects in this database (releases are refused while they differ)';

-- A unit's sum of floating-point values (src/pg/query/bound.c): like sum(double precision) but never an
-- overflow error (the sum saturates to +-Infinity, which the per-unit aggregate then clamps like
-- any value), so no error can tell whether one unit's values add up to more than 1.8e308.  It is
-- an ordinary sum of the values it is given, safe for anyone to call.
CREATE FUNCTION dpagg_fsum_trans(double precision, double precision) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE dpagg_fsum(double precision) (
  SFUNC = dpagg_fsum_trans, STYPE = double precision, COMBINEFUNC = dpagg_fsum_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_fsum(double precision) IS
  'sum of double precision values that saturates to +-Infinity instead of raising an overflow error';
-- A numeric value as double precision, +-Infinity beyond its range instead of an error: a unit's
-- numeric values are summed as dpagg_fsum(dpagg_numeric_float8(x)), since sum(numeric) raises an
-- overflow error past 1e131072 that would tell whether one unit's values add up to that.
CREATE FUNCTION dpagg_numeric_float8(numeric) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- a / b in IEEE arithmetic, never an error (an underflow is 0, an overflow +-Infinity; NULL for
-- b = 0): a unit's average is dpagg_fdiv(its sum, its count), since float8div's underflow error
-- would tell whether one unit's values add up to a subnormal.
CREATE FUNCTION dpagg_fdiv(double precision, double precision) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- A unit's vector sum (src/pg/query/bound.c, for dp_sum_vector): the first `dimension` elements of each
-- vector added coordinate by coordinate (missing and NULL elements count as 0), saturating like
-- dpagg_fsum; the per-unit aggregate then clips the sum to the l2 bound.
CREATE FUNCTION dpagg_vadd_trans(double precision[], double precision[], integer)
  RETURNS double precision[]
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpagg_vadd_combine(double precision[], double precision[])
  RETURNS double precision[]
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dpagg_vadd(double precision[], integer) (
  SFUNC = dpagg_vadd_trans, STYPE = double precision[], COMBINEFUNC = dpagg_vadd_combine,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpagg_vadd(double precision[], integer) IS
  'coordinate-wise sum of the first n elements of double precision vectors (NULL and missing count as 0), saturating';
-- The aggregate stays public (the per-unit rewrite puts it in analysts' plans); its transition
-- and combine functions are for it alone: nobody else may call them or build an aggregate on them
-- (an aggregate runs them with its owner's rights, EXECUTE on the aggregate is all its callers need).
REVOKE ALL ON FUNCTION dpagg_vadd_trans(double precision[], double precision[], integer),
  dpagg_vadd_combine(double precision[], double precision[]) FROM PUBLIC;

CREATE FUNCTION dp_mechanisms(
    OUT name text, OUT guarantee text, OUT accepts_zero_delta boolean, OUT description text)
  RETURNS SETOF record
  AS 'MODULE_PATHNAME', 'dpagg_mechanisms_sql' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_mechanisms() IS 'the noise mechanisms dpagg implements';
"""

REVOKE = """-- Support functions are for dpagg's own aggregates only: nobody else may call them or build an
-- aggregate on them (CREATE AGGREGATE needs EXECUTE on its support functions; dpagg's aggregates
-- run them with their owner's rights).  Every support function of every aggregate above; the
-- type's I/O functions and the views' functions stay public."""

HAND_WRITTEN = ["aggregates/vector.sql", "labels/protect.sql", "ledger/budgets.sql"]


def script():
    out = [HEADER.replace("@VERSION@", version()), quanta_sql()]
    declared = set()
    for kind in KINDS:
        out.append(f"-- {kind.title}")
        for f in kind.support():
            if f.name not in declared:
                declared.add(f.name)
                out.append(f.sql())
        for a in kind.aggregates:
            if a.sfunc.signature() not in declared:  # a report form shares its kind's sfunc
                declared.add(a.sfunc.signature())
                out.append(a.sfunc.sql())
            out.append(kind.aggregate_sql(a) + "\n")
    out.append(FOOTER)
    for extra in HAND_WRITTEN:
        with open(os.path.join(ROOT, "src", "pg", extra)) as f:
            text = f.read()
        if re.search(r"\bCREATE\s+(OR\s+REPLACE\s+)?AGGREGATE\b", text, re.I):
            sys.exit(f"generate_sql.py: src/pg/{extra} defines an aggregate: put it in the table "
                     "of scripts/generate_sql.py (site.c and the REVOKE must know its functions)")
        out.append(text)
    revoked = []
    for kind in KINDS:
        for f in kind.functions():
            if f.signature() not in revoked:
                revoked.append(f.signature())
    # (The quanta functions stay public: Citus's workers call them with the analyst's rights, and
    # an exact clamped value is no more than the value itself.)
    out.append(REVOKE + "\nREVOKE ALL ON FUNCTION\n  " + ",\n  ".join(revoked) + "\n  FROM PUBLIC;\n")
    return "\n".join(out)


# ---- The C header (src/pg/aggregates/site.c) -----------------------------------------------------------

def header():
    symbols = []
    for kind in KINDS:
        for s in [f.symbol for f in kind.support()] + kind.trans_symbols():
            if s not in symbols:
                symbols.append(s)
    max_trans = max(len(k.trans_symbols()) for k in KINDS)
    out = ["/*",
           " * dpagg_functions.h — generated by scripts/generate_sql.py (make); do not edit.",
           " *",
           " * The C functions that make up each kind of dpagg's aggregates, from the same table that",
           " * writes their CREATE AGGREGATE statements in the extension script.  src/pg/aggregates/site.c includes it",
           " * (after site.h, which defines the DP_SITE_* kinds) and recognises dpagg's own aggregates,",
           " * and their transition functions in a plan, by these addresses.",
           " */",
           "#ifndef DPAGG_FUNCTIONS_H",
           "#define DPAGG_FUNCTIONS_H",
           "",
           '#include "fmgr.h"',
           ""]
    out += [f"extern Datum {s}(PG_FUNCTION_ARGS);" for s in symbols]
    out += ["",
            "/* The most transition functions of one kind (one per value type). */",
            f"#define DPAGG_MAX_TRANS {max_trans}",
            "",
            "/* One initializer per kind, for a struct with the members kind, final, report (the final",
            " * function of its report forms), combine, serial, deserial (PGFunction, NULL when the kind",
            " * has none) and trans[DPAGG_MAX_TRANS]. */",
            "#define DPAGG_KIND_FUNCTIONS \\"]
    rows = []
    for kind in KINDS:
        def c(f):
            return f.symbol if f else "NULL"
        trans = kind.trans_symbols()
        trans = ", \\\n\t\t\t   ".join(", ".join(trans[i:i + 3]) for i in range(0, len(trans), 3))
        rows.append(f"\t{{.kind = {kind.c_kind}, .final = {c(kind.final)}, .report = {c(kind.report)}, "
                    f".combine = {c(kind.combine)}, "
                    f"\\\n\t .serial = {c(kind.serial)}, .deserial = {c(kind.deserial)}, \\\n"
                    f"\t .trans = {{{trans}}}}}")
    out.append(", \\\n".join(rows))
    out += ["", "#endif\t\t\t\t\t\t\t/* DPAGG_FUNCTIONS_H */", ""]
    return "\n".join(out)


def write(path, text):
    """Write atomically: an interrupted build never leaves a half-written output behind."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sql", metavar="PATH", help="write the extension script here")
    ap.add_argument("--header", metavar="PATH", help="write site.c's C table here")
    opts = ap.parse_args()
    if not opts.sql and not opts.header:
        ap.error("nothing to write: give --sql and/or --header")
    if opts.sql:
        write(opts.sql, script())
    if opts.header:
        write(opts.header, header())


if __name__ == "__main__":
    main()
