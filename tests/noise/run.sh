#!/usr/bin/env bash
# Two-sided statistical checks of the noise of every release path, against a real throwaway
# cluster: too little noise must fail as surely as too much.
#
# Why.  An audit found faults that passed every earlier test, because those tests checked means
# or one-sided bounds: "dp_avg's count half drawn and then discarded (the count released
# exactly)", "dp_sum_vector adding half the calibrated noise", "per-unit dp_avg calibrated at
# epsilon/2 instead of epsilon/(2L)".  Here the released values of every path are compared,
# two-sided, with the calibration that path must use.  The truth is what dpagg states about its
# own noise: dp_calibrate(mech, eps, delta, sens[, integer_valued]).l2 = E[noise^2],
# dp_calibrate_vector(...) (mse, per_coordinate_variance, scale), the closed forms of the report
# intervals (docs/intervals.md) and of group selection (docs/partition_selection.md).
#
# Samples.  One statement over a table that is not private with GROUP BY g releases one
# independent value per group (one charge for the statement): 4000 groups of a known answer give
# 4000 noise draws in one query (20000 for the private variances, section 10).  Over a private
# relation (dp_protect, L = 3) the public-groups form (FROM keys k LEFT JOIN private p ON ...
# GROUP BY k.g) releases every key (3000, or 6000 for dp_avg and section 11's per-unit variance
# and median), each calibrated at (epsilon/3, delta/3); the group-selection checks group by
# private keys instead and count the groups released.
#
# Statistics (tests/noise/stats.py, python3 standard library; d = released - true answer).  Every
# random check fails by chance with probability at most 5e-9; there are about 110 of them, so by
# Bonferroni the whole script fails by chance with probability below 1e-6.
#   var    R = mean(d^2)/V, V the calibrated E[d^2] (R is the second moment about the truth, so
#          a bias counts too).  Fails below r_lo = 1 - sqrt(2 K ln(2/5e-9)/n): Bernstein's
#          inequality for the mean of the nonnegative Y = d^2/V, P(mean(Y) <= 1 - t) <=
#          exp(-n t^2/(2 E[Y^2])), where E[Y^2] is the kurtosis K of the noise: 3 for Gaussian
#          noise, exact values for the vector laws (1.5 to 4.2, see vector_checks), else 7, above
#          every other family used (Laplace 6, discrete Laplace and the mixtures 6.3 or less),
#          or the sample's kurtosis if larger.  Rigorous, at most 2.5e-9.  Fails above when the
#          studentized z = (R - 1)/(sd(d^2/V)/sqrt(n)) exceeds 7 (the standard error carries the
#          sample's own fourth moment; for the positively skewed d^2 the upper tail of a
#          studentized mean is lighter than the normal's 1.3e-12), or when R > 2 whatever the
#          spread (a fault that makes the sample erratic must not pass on its inflated standard
#          error).  And the studentized mean of d must be within +-7: the noise is symmetric, so
#          given the |d_i| its signs are fair coins and the studentized mean is sub-Gaussian
#          (Efron 1969; Hoeffding): P(|t| >= 7) <= 2 exp(-24.2) = 6e-11.
#          Bands: r_lo is 0.74 (Laplace-like, n = 4000), 0.83 (Gaussian, n = 4000), 0.70 (n =
#          3000), 0.79 (n = 6000); the upper edge is about 1 + 7 x 0.035 (Laplace) or 0.022
#          (Gaussian).  Power, printed per line: a true variance factor r fails with probability
#          > 1 - 1e-9 once r (1 + 6.1 rse) <= r_lo or (r - 1)/(r rse) >= 13.1, rse the relative
#          standard error of R: variance <= 0.61x or >= 1.9x for Laplace at n = 4000, <= 0.73x
#          or >= 1.4x for Gaussians.  Half the standard deviation (r = 0.25) and twice it (r = 4)
#          fail with certainty in practice (R < r_lo by 20+ standard errors, R > 2).
#   quant  for every mechanism of section 1: the number of |d| <= w, w the noise's calibrated
#          median (dp_noise_interval at 0.5; exact for continuous noise), is Binomial(n, 1/2):
#          exact two-sided binomial test.  The law's shape, not only its variance, and blind
#          to a few wild values.  Band [0.454, 0.546] at n = 4000.
#   cover  the number of report intervals holding the truth against their exact coverage (95 %
#   select and 80 % for continuous noise, 1 - exp(-(W + 1/2)/b) for the Laplace count), and the
#          number of private groups of n units released against pi(n): exact two-sided binomial
#          tests, at most 2.5e-9 in each tail.  Each line prints its band.
#   ks     the law of the vector noise's norm (Gamma(4, theta) for the l2 mechanism, sigma chi_4
#          for the Gaussian): Kolmogorov-Smirnov distance at most sqrt(ln(2/5e-9)/(2n)) (0.050 at
#          n = 4000): the Dvoretzky-Kiefer-Wolfowitz-Massart bound, rigorous.  A norm scaled by
#          0.91 or 1.1 (Gaussian), 0.88 or 1.13 (l2) fails with probability > 1 - 5e-9.
#   simks  a private variance's releases (one number computed from three noisy parts) against
#          the estimator's law simulated in stats.py from the true parts and the calibrated
#          Laplace noise (200000 draws, fixed seed): two-sample Kolmogorov-Smirnov distance at
#          most sqrt(ln(4/5e-9)/(2n)) + sqrt(ln(4/5e-9)/(2M)) = 0.030 (n = 20000, M = 200000):
#          DKW-Massart for each sample at 2.5e-9, rigorous (section 10; per unit, section 11:
#          0.049 at n = 6000, the law simulated at one group's scales).
#   simvar R = mean(d^2)/E[d^2] against the simulated law's E[d^2] (d = release - truth): the
#          var bands (kurtosis from the simulation), widened by the simulation's own error, and
#          the mean of d against the simulated mean.  Each part's noise halved or doubled, or
#          the count released exactly, fails with certainty (section 10); per unit, every part
#          at epsilon_i instead of epsilon_i / L, or at epsilon_i / L^2 (section 11).
#   qhit   the number of quantile releases in the bin of score 0 against permute-and-flip's
#          exact chance E[1 / (1 + X + Y)] (docs/quantiles.md section 3; X, Y the heads among the
#          bins below and above): exact two-sided binomial test (sections 9 and 11).
#   tol    interval widths and report fields equal to the closed forms within 1e-9 relative
#          (1e-7 where dp_avg_report's halves are recovered by arithmetic): exact, never failing
#          by chance.
#
# The checks (sections below; each section's comment says which faults it catches):
#   1. dp_sum through every mechanism of dp_mechanisms() (auto resolved), float values at
#      (0.7, 1e-5, sensitivity 3), and 5 on the integer path (integer-valued calibrations);
#      dp_sum's own final function in a parallel plan.                          [var, quant]
#   2. dp_count (rows and non-NULL values) with 5 mechanisms.                           [var]
#   3. dp_avg: the value against both halves' calibrations; dp_avg_report: its sum half and
#      its count half recovered one by one, and its interval fields.              [var, tol]
#   4. dp_sum_report (Laplace at 95 %, Gaussian at 80 %), dp_count_report: value, width =
#      calibrated quantile, noise_scale, exact coverage.                     [var, tol, cover]
#   5. dp_sum_vector (gaussian, l2, auto; dimension 4): each coordinate, E|noise|^2 = mse, the
#      law of |noise|.                                                             [var, ks]
#   6. dpagg_merge_sum (numeric and 16-byte partials), dpagg_merge_count, dpagg_merge_avg (+ its
#      report's halves), dpagg_merge_vector.                                       [var, tol]
#   7. Per unit, L = 3: dp_sum (Laplace, and analytic Gaussian with its joint calibration),
#      dp_count, dp_avg (+ report halves), dp_sum_report, dp_sum_vector.      [var, tol, ks]
#   8. Group selection, L = 3, optimal/laplace/gaussian: release rates of groups of 1, 2, 4, 7
#      units, and keep_one_unit.                                                     [select]
#   9. dp_median and dp_percentile: the share of releases in the quantile's bin against
#      permute-and-flip's exact chance.                                                [qhit]
#  10. dp_var_pop (epsilon 2) and dp_stddev_samp (epsilon 5), laplace: the law of the releases
#      and their second moment about the truth against the estimator simulated from the three
#      parts (squares, sum, count) at dp_explain's scales, themselves checked against
#      dp_calibrate at each part's share.  Catches a part at the wrong scale (share, sensitivity,
#      a factor 2), a part not noised (the count exact), clamping, centring or the final
#      clamps and n/(n - 1) wrong.                                           [simks, simvar]
#  11. Per unit, L = 3, public groups, each unit's value its average in the group: dp_var_pop
#      (epsilon 6, laplace) against the law simulated at the per-group scales (dp_explain's,
#      checked at (epsilon_i/3, delta_i/3)), and dp_median (epsilon 1.35) against
#      permute-and-flip's chance at epsilon/3 (dp_explain's group_epsilon checked).  Catches a
#      per-unit variance or quantile at epsilon instead of epsilon/L, or at epsilon/L^2, and the
#      rows' statistic in place of the units'.                         [simks, simvar, qhit]
#  12. dp_median without bounds (epsilon 2): permute-and-flip over the cells of the range the
#      histogram finds, at the half of epsilon left (the share of releases in the cell of score
#      0).  Catches the quantile at all of epsilon or a quarter of it.                     [qhit]
#
# dp_avg.  It releases m + s/max(c, 1), clamped to [lower, upper], from a noisy centred sum s
# (sensitivity B = (upper - lower)/2) and a noisy count c (sensitivity 1, rounded), each at
# (epsilon/2, delta/2) (src/pg/aggregates/aggregates.c, docs/intervals.md).  With N rows of centred value
# mu, to second order  dp_avg - (m + mu) = X_s/N - mu X_c/N,  so
#   Var = (l2_sum + mu^2 E[rint(X_c)^2]) / N^2,  bias mu E[rint(X_c)^2] / N^2
# (the terms left out are below 0.1 % here).  With mu = 0.85 B (0.8 B per unit) and Laplace
# halves (l2 in the ratio B^2 : 1) the count half is 41-43 % of the variance: the count released
# exactly gives R of about 0.56-0.59, 10 or more standard errors below r_lo (0.74 at n = 4000,
# 0.79 per unit at n = 6000).  N (1 - mu/B) is over 33 noise scales, so no release comes near
# the clamp to [lower, upper] (which would also break the recovery below).  The halves are also
# observed one by one through dp_avg_report: with s - ws >= 0 and ci_low inside the bounds,
# ci_low = m + (s - ws)/(c + Wc) and value = m + s/c, so c = (ws + (ci_low - m) Wc)/(value - ci_low)
# and s = (value - m) c, with ws and Wc the closed-form half-widths of the halves at confidence
# 1 - (1 - 0.95)/2; the recovered c must be a whole number and ci_high must be
# m + (s + ws)/(c - Wc) (checks of ws and Wc), and s - S and c - N must each have their
# calibrated variance.
#
# Self-test.  NOISE_SELFTEST=1 makes the same releases and then, before the statistics, changes
# them as each fault a check is meant to catch would: noise standard deviation times 0.5 (or
# NOISE_SELFTEST_FACTOR) and times 2, dp_avg's count half replaced by the exact count (built from
# the report's recovered sum half: m + s/N), the count half not noised at all, per-unit noise at
# a third of its scale (epsilon not divided by L), widths halved or doubled, selection rates of a
# strategy calibrated as for L = 1, halved or doubled; for the private variances, each release's
# deviation from the truth halved or doubled, and the releases replaced by as many simulated
# with one part's noise (squares, sum, count) halved or doubled or the count exact (the KS check:
# the doublings only, which it catches with certainty); per unit (section 11), the variance's
# releases simulated with every part at epsilon_i instead of epsilon_i/L (a third of each scale)
# or at epsilon_i/L^2, and the median's hit count as at epsilon or at epsilon/L^2.  Every (check,
# fault) must then FAIL: it prints one "ok" line per fault detected and "not ok" for any fault a
# check lets through.
#
# Prints "ok N - ..." / "not ok N - ..." per check with its measured ratio, band and power, and
# ends with "noise: N passed, N failed"; exits non-zero if any failed.  Unless
# DPAGG_NOISE_INSIDE is set it runs itself in pg_virtualenv.  Needs dpagg installed.  About 55 s
# on 2 cores (section 10: about 10 s; section 11: about 8 s).
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${DPAGG_NOISE_INSIDE:-}" ]; then
  export DPAGG_NOISE_INSIDE=1
  exec timeout 175 pg_virtualenv -t -v 15 -o shared_preload_libraries=dpagg "$0" "$@"
fi

PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
. tests/cluster_lib.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/dpagg_noise.XXXXXX")
trap 'rm -rf "$work"' EXIT
manifest=$work/manifest
: > "$manifest"
selftest=${NOISE_SELFTEST:-}
shrink=${NOISE_SELFTEST_FACTOR:-0.5}
# The faults every variance check must catch: noise standard deviation times 0.5 (or the
# factor asked for) and times 2.
SD="scale:$shrink,scale:2"

val() { "${PSQL[@]}" -c "$1"; }
# sample NAME KIND LABEL PARAMS FAULTS SQL...: the rows of the statements (the last one returns
# the samples, columns separated by '|') into $work/NAME, and the check into the manifest.
sample() {
  local name=$1 kind=$2 label=$3 params=$4 faults=$5 s
  shift 5
  local args=()
  for s in "$@"; do args+=(-c "$s"); done
  if "${PSQL[@]}" "${args[@]}" > "$work/$name" 2> "$work/$name.err"; then
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$label" "$params" "$faults" >> "$manifest"
  else
    check "$label: released" "released" "error: $(tr '\n' ' ' < "$work/$name.err" | head -c 400)"
  fi
}
# also NAME KIND LABEL PARAMS FAULTS: one more check of the samples of NAME.
also() { [ -f "$work/$1" ] && printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$manifest"; }
# A check with a known answer, not random (only in the normal run).
fixed() { [ -n "$selftest" ] || check "$@"; }

q "CREATE EXTENSION dpagg" >/dev/null
q "SELECT dp_set_budget(current_user::regrole, 1e12, 0.9)" >/dev/null

# ------------------------------------------------------------------------------------------
# Data.  Tables that are not private: 4000 groups each.
#   sums: 2 rows per group, x = 0.75 (sum 1.5, sensitivity 3), xi = 2 (integer sum 4 in [0, 5])
#   cnt:  60 rows per group (45 non-NULL y), x = 0.0625: counts far from the clamp at 0
#   avgt: 200 rows per group of x = 3.7 in [0, 4]: m = 2, B = 2, mu = 1.7 = 0.85 B
#   vec:  2 rows per group of [0.3, -0.4, 0, 0] (norm 0.5, inside the bound 1.5): sum [0.6, -0.8, 0, 0]
# Private (L = 3), every unit in exactly 3 groups (one in each of 3 layers of 1000), so L-sampling
# keeps every row and the answers are known:
#   pu:  3000 groups of 60 units, x = 1.85 per unit and group (bounds [0, 2]: unit sum 1.85),
#        v = [0.1, 0.2, 0.3, 0.4]; keys in pk (not private)
#   pua: for dp_avg, 6000 groups of 100 units, x = 1.8 (bounds [0, 2]: m = 1, B = 1, mu = 0.8 B);
#        keys in pka
#   sel: for group selection, groups of exactly n units: 30000 of 1 unit, 15000 each of 2, 4 and 7
#        units (the class of each group in sel_class)
q "CREATE TABLE sums AS SELECT g, 0.75::float8 AS x, 2 AS xi FROM generate_series(1, 4000) g, generate_series(1, 2) j;
   CREATE TABLE cnt AS SELECT g, CASE WHEN j % 4 = 0 THEN NULL ELSE j END AS y, 0.0625::float8 AS x
     FROM generate_series(1, 4000) g, generate_series(1, 60) j;
   CREATE TABLE avgt AS SELECT g, 3.7::float8 AS x FROM generate_series(1, 4000) g, generate_series(1, 200) j;
   CREATE TABLE vec AS SELECT g, ARRAY[0.3, -0.4, 0, 0]::float8[] AS v FROM generate_series(1, 4000) g, generate_series(1, 2) j;
   CREATE TABLE pk AS SELECT g FROM generate_series(0, 2999) g;
   CREATE TABLE pu AS SELECT u AS uid, l * 1000 + ((u::bigint * (ARRAY[1, 7, 11])[l + 1]) % 60000) / 60 AS g,
       1.85::float8 AS x, ARRAY[0.1, 0.2, 0.3, 0.4]::float8[] AS v
     FROM generate_series(0, 59999) u, generate_series(0, 2) l;
   CREATE TABLE pka AS SELECT g FROM generate_series(0, 5999) g;
   CREATE TABLE pua AS SELECT u AS uid, l * 2000 + ((u::bigint * (ARRAY[1, 3, 7])[l + 1]) % 200000) / 100 AS g, 1.8::float8 AS x
     FROM generate_series(0, 199999) u, generate_series(0, 2) l;
   CREATE TABLE sel_class AS SELECT n, n * 100000 + l * per + i AS g
     FROM (VALUES (1, 10000), (2, 5000), (4, 5000), (7, 5000)) c(n, per), generate_series(0, 2) l, generate_series(0, per - 1) i;
   CREATE TABLE sel AS SELECT n * 1000000 + u AS uid, n * 100000 + l * per + u / n AS g
     FROM (VALUES (1, 10000), (2, 5000), (4, 5000), (7, 5000)) c(n, per), generate_series(0, 2) l, generate_series(0, per * n - 1) u;
   ANALYZE sums; ANALYZE cnt; ANALYZE avgt; ANALYZE vec; ANALYZE pk; ANALYZE pu; ANALYZE pka; ANALYZE pua; ANALYZE sel_class; ANALYZE sel;" >/dev/null
fixed "the private test relations hold what the truths assume (groups of exactly 60, 100 and n units, 3 groups per unit)" \
  "3000 60000 6000 200000 75000 75000" \
  "$(val "SELECT (SELECT count(*) FROM (SELECT g FROM pu GROUP BY g HAVING count(DISTINCT uid) = 60 AND count(*) = 60) a)
          || ' ' || (SELECT count(*) FROM (SELECT uid FROM pu GROUP BY uid HAVING count(DISTINCT g) = 3) b)
          || ' ' || (SELECT count(*) FROM (SELECT g FROM pua GROUP BY g HAVING count(DISTINCT uid) = 100 AND count(*) = 100) a)
          || ' ' || (SELECT count(*) FROM (SELECT uid FROM pua GROUP BY uid HAVING count(DISTINCT g) = 3) b)
          || ' ' || (SELECT count(*) FROM (SELECT g FROM sel JOIN sel_class USING (g) GROUP BY g, n
                                            HAVING count(DISTINCT uid) = n AND count(*) = n) c)
          || ' ' || (SELECT count(*) FROM (SELECT uid FROM sel GROUP BY uid HAVING count(DISTINCT g) = 3) d)")"
q "SELECT dp_protect('pu', 'uid', 3); SELECT dp_protect('pua', 'uid', 3); SELECT dp_protect('sel', 'uid', 3)" >/dev/null

# kurt_of MECHANISM_NAME: ";K=3" for the Gaussian mechanisms (the kurtosis of Gaussian noise,
# and below it for rounded Gaussian noise), else nothing: stats.py then assumes 7 (every other
# family used here has 6.3 or less: Laplace 6, discrete Laplace at these scales 6.1-6.3, the
# staircase, Tulap and the mixtures below that; the generalized Gaussian (p = 1.5) 3.8).
kurt_of() {
  case "$1" in
    analytic_gaussian|classic_gaussian|dwork2006_gaussian|zhao1_gaussian|zhao2_gaussian|zcdp_gaussian|pdp_gaussian|zhao3_pdp_gaussian|zhao4_pdp_gaussian) echo ";K=3" ;;
  esac
}
# l2(mech, eps, delta, sens, int): dp_calibrate's E[noise^2]
l2() { val "SELECT l2 FROM dp_calibrate('$1', $2, $3, $4, ${5:-false})"; }
mname() { val "SELECT mechanism_name FROM dp_calibrate('$1', $2, $3, $4, ${5:-false})"; }
# A released count is rint(n + X) (then clamped at 0, which these counts never reach), so its
# E[d^2] is E[rint(X)^2]: for Laplace(b) exactly 2 sinh(1/(2b)) q (1 + q)/(1 - q)^3, q = e^(-1/b)
# (P(rint X = k) = sinh(1/(2b)) e^(-|k|/b) for k != 0); for Gaussian noise (sigma >= 5 here)
# l2 + 1/12 (Sheppard, exact to e^(-2 pi^2 sigma^2)); l2 for integer noise (discrete Laplace);
# l2 - sigma^2 for the integer-valued multi-Gaussian (components N(k, sigma^2), sigma = 0.02:
# rint gives k).  Other families round differently and are not used for counts.
count_l2() {
  val "SELECT CASE WHEN mechanism_name = 'laplace'
                   THEN 2 * sinh(1 / (2 * scale)) * exp(-1 / scale) * (1 + exp(-1 / scale)) / (1 - exp(-1 / scale))^3
                   WHEN mechanism_name = 'discrete_laplace' THEN l2
                   WHEN mechanism_name LIKE 'multi_gaussian%' AND scale < 0.05 THEN l2 - scale^2
                   WHEN mechanism_name LIKE '%gaussian' AND scale >= 5 THEN l2 + 1/12.0 END
       FROM dp_calibrate('$1', $2, $3, 1, true)"
}

# ------------------------------------------------------------------------------------------
# 1. dp_sum through every mechanism dp_mechanisms() names (auto resolved as it would be), at
#    epsilon 0.7, delta 1e-5, sensitivity 3 (clamping [-3, 3]); the integer path (integer values,
#    whole bounds [0, 5]: integer-valued calibrations) for the families where that matters.
#    Catches: a mechanism sampling the wrong scale (sensitivity or epsilon ignored, a factor 2,
#    sigma taken for the variance), a sampler with the wrong shape, the release path dropping
#    or halving the noise.
for m in $(val "SELECT name FROM dp_mechanisms() WHERE name <> 'discrete_laplace' ORDER BY name"); do
  mn=$(mname "$m" 0.7 1e-5 3)
  sample "sum_$m" var "dp_sum(x, 0.7, 1e-5, 3, '$m') [$mn]" "V=$(l2 "$m" 0.7 1e-5 3)$(kurt_of "$mn")" "$SD" \
    "SELECT dp_sum(x, 0.7, 1e-5, 3, '$m') - sum(x) FROM sums GROUP BY g"
  # ... and the share of releases within the noise's calibrated median (dp_noise_interval at
  # 0.5, exact for these continuous families): the shape of the noise, not only its variance;
  # catches noise of the right variance but the wrong law, and any scale error (a standard
  # deviation off by 10 % moves the share by 4-7 points, 10 or more standard errors).
  also "sum_$m" quant "dp_sum(x, 0.7, 1e-5, 3, '$m') [$mn]: median" \
    "w=$(val "SELECT dp_noise_interval('$m', 0.7, 1e-5, 3, 0.5)");p=0.5" "$SD"
done
for m in discrete_laplace multi_gaussian auto laplace tulap; do
  sample "isum_$m" var "dp_sum(integer, 0.7, 1e-5, 0, 5, '$m') [$(mname "$m" 0.7 1e-5 5 true), integer-valued]" \
    "V=$(l2 "$m" 0.7 1e-5 5 true)" "$SD" \
    "SELECT dp_sum(xi, 0.7, 1e-5, 0, 5, '$m') - sum(xi) FROM sums GROUP BY g"
done
# dp_sum's own final function (the state path; a serial plan uses dpagg_sum_inline): a parallel
# plan with partial aggregation.
par=("SET parallel_setup_cost = 0" "SET parallel_tuple_cost = 0" "SET min_parallel_table_scan_size = 0"
     "SET max_parallel_workers_per_gather = 2")
fixed "the parallel dp_sum plan aggregates partially (dpagg_sum_final, not the inline sum)" "yes" \
  "$("${PSQL[@]}" "${par[@]/#/-c}" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT g, dp_sum(x, 0.8, 1e-5, 2, 'laplace') FROM cnt GROUP BY g" \
     | grep -q 'PARTIAL dp_sum' && echo yes || echo no)"
sample par_sum var "dp_sum in a parallel plan (partial states combined), laplace, 0.8, 1e-5, sensitivity 2" \
  "V=$(l2 laplace 0.8 1e-5 2)" "$SD" "${par[@]}" \
  "SELECT dp_sum(x, 0.8, 1e-5, 2, 'laplace') - sum(x) FROM cnt GROUP BY g"

# ------------------------------------------------------------------------------------------
# 2. dp_count (rows, and non-NULL values), epsilon 0.5: sensitivity 1, integer-valued.
#    Catches: the count released with no, half or double noise; a calibration at the wrong
#    sensitivity or epsilon.
for m in laplace analytic_gaussian discrete_laplace multi_gaussian auto; do
  mn=$(mname "$m" 0.5 1e-5 1 true)
  sample "count_$m" var "dp_count(0.5, 1e-5, '$m') [$mn]" "V=$(count_l2 "$m" 0.5 1e-5)$(kurt_of "$mn")" "$SD" \
    "SELECT dp_count(0.5, 1e-5, '$m') - count(*) FROM cnt GROUP BY g"
done
sample count_value var "dp_count(y, 0.5, 1e-5, 'laplace') (non-NULL values)" "V=$(count_l2 laplace 0.5 1e-5)" "$SD" \
  "SELECT dp_count(y, 0.5, 1e-5, 'laplace') - count(y) FROM cnt GROUP BY g"

# ------------------------------------------------------------------------------------------
# dp_avg and its report: the value against both halves' calibrations, and each half on its own.
# avg_checks PREFIX LABEL N MID B MU L2S L2C WS WC SCALE_S PLAIN_SQL REPORT_SQL [FAULTS]
#   PLAIN_SQL returns the released averages; REPORT_SQL the report rows' value, ci_low, ci_high,
#   noise_scale (one group each).
avg_checks() {
  local pre=$1 label=$2 N=$3 mid=$4 B=$5 mu=$6 l2s=$7 l2c=$8 ws=$9 wc=${10} bs=${11} plain=${12} report=${13} more=${14:-}
  local V bias
  # The ratio's second-order bias mu E[w^2] (w = X_c/N) is subtracted: about 0.1 standard errors.
  V=$(val "SELECT ($l2s + $mu^2 * $l2c) / $N^2")
  bias=$(val "SELECT $mu * $l2c / $N^2")
  # Recovered halves (docs/intervals.md section 6, with s - ws >= 0 and ci_low inside the
  # bounds, as here): ci_low = m + (s - ws)/(c + Wc) and value = m + s/c give
  # c = (ws + (ci_low - m) Wc)/(value - ci_low), then s = (value - m) c.
  "${PSQL[@]}" -c "CREATE TABLE ${pre}_rep AS SELECT (r).value AS v, (r).ci_low AS lo, (r).ci_high AS hi, (r).noise_scale AS ns
      FROM ($report) q(r);
    CREATE TABLE ${pre}_halves AS SELECT v, lo, hi, ns, c, (v - $mid) * c AS s FROM (
      SELECT *, ($ws + (lo - $mid) * $wc) / (v - lo) AS c FROM ${pre}_rep) q" >/dev/null 2>"$work/${pre}.err" ||
    check "$label report: released" "released" "error: $(head -c 400 "$work/${pre}.err")"
  # The value with its count half exact (what that fault would release): m + s/N.
  "${PSQL[@]}" -c "SELECT $mid + s / $N - ($mid + $mu) - $bias FROM ${pre}_halves" > "$work/${pre}_countexact"
  # dp_avg: catches the count half discarded (R about 0.57), either half's noise halved or doubled,
  # a half calibrated at the wrong epsilon share (e.g. epsilon/2 instead of epsilon/(2L)).
  sample "${pre}_value" var "$label: value, against both halves (count half $(val "SELECT round(100 * $mu^2 * $l2c / ($l2s + $mu^2 * $l2c))") % of the variance)" \
    "V=$V" "$SD,file:${pre}_countexact:count half released exactly (c = N)$more" \
    "SELECT v - ($mid + $mu) - $bias FROM ($plain) q(v)"
  # dp_avg_report's sum half: catches the sum's noise wrong in the report path.
  sample "${pre}_sum_half" var "$label report: recovered sum half s - S" "V=$l2s" "$SD$more" \
    "SELECT s - $N * $mu FROM ${pre}_halves"
  # ... its count half: catches the count released exactly (scale 0) or with wrong noise.
  sample "${pre}_count_half" var "$label report: recovered count half c - N (rounded Laplace)" "V=$l2c" \
    "$SD,scale:0$more" "SELECT c - $N FROM ${pre}_halves"
  # ... its fields: c a whole number (so ws and Wc are the closed forms the recovery assumed),
  # ci_high = m + (s + ws)/(c - Wc) (or the upper bound where that is above it), noise_scale
  # the sum half's scale.  Catches intervals built from other quantiles than the calibrated ones.
  sample "${pre}_fields" tol "$label report: c whole, ci_high = m + (s + ws)/(c - Wc) with the closed-form ws, Wc; noise_scale" \
    "tol=1e-7" "scale:0.5,scale:2" \
    "SELECT x FROM ${pre}_halves, LATERAL (VALUES (c / round(c)), (ns / $bs),
       (CASE WHEN hi < $mid + $B THEN ((hi - $mid) * (round(c) - $wc) - s) / $ws
             WHEN $mid + (s + $ws) / (round(c) - $wc) >= hi THEN 1 ELSE 0 END)) t(x)"
}

# 3. dp_avg over avgt: epsilon 2.4 (1.2 per half), laplace: b_s = 2/1.2, b_c = 1/1.2; the clamp
#    is N (1 - mu/B) / b_c = 36 noise scales away.  Catches the audit's "count half drawn and
#    then discarded", either half's noise halved or doubled, a half at the wrong epsilon share.
conf2=$(val "SELECT 1 - (1 - current_setting('dpagg.report_confidence')::float8) / 2")
avg_params() {  # eps delta B -> l2s l2c ws wc bs (eps, delta: one half's share per group; l2c rounded)
  echo "$(val "SELECT s.l2, s.scale * ln(1 / (1 - $conf2)), ceil(c.scale * ln(1 / (1 - $conf2))), s.scale
               FROM dp_calibrate('laplace', $1, $2, $3) s, dp_calibrate('laplace', $1, $2, 1, true) c" |
          awk -F'|' -v c="$(count_l2 laplace "$1" "$2")" '{print $1, c, $2, $3, $4}')"
}
read -r l2s l2c ws wc bs <<< "$(avg_params 1.2 5e-6 2)"
avg_checks avg "dp_avg(x, 2.4, 1e-5, 0, 4, 'laplace')" 200 2 2 1.7 "$l2s" "$l2c" "$ws" "$wc" "$bs" \
  "SELECT dp_avg(x, 2.4, 1e-5, 0, 4, 'laplace') FROM avgt GROUP BY g" \
  "SELECT dp_avg_report(x, 2.4, 1e-5, 0, 4, 'laplace') FROM avgt GROUP BY g"

# ------------------------------------------------------------------------------------------
# 4. The report forms of dp_sum and dp_count: the value's noise, the interval's width against
#    the closed-form quantile of the calibrated noise (Laplace b ln(1/(1 - c)), Gaussian
#    sigma Phi^-1((1 + c)/2)), noise_scale, and the exact coverage (two-sided: an interval that
#    holds the truth too often means too little noise).  Catches: the report path releasing
#    other noise than the plain aggregate (value), intervals from another quantile, confidence
#    or calibration than the release's (width, noise_scale), an interval that is right but
#    around a value with too little or too much noise (coverage).
zq() { python3 -c "import statistics; print(repr(statistics.NormalDist().inv_cdf((1 + $1) / 2)))"; }
report_sum() {  # name mech eps delta sens conf quantile-per-scale
  local name=$1 m=$2 eps=$3 delta=$4 sens=$5 conf=$6 k=$7 scale
  scale=$(val "SELECT scale FROM dp_calibrate('$m', $eps, $delta, $sens)")
  local set=(-c "SET dpagg.report_confidence = $conf")
  "${PSQL[@]}" "${set[@]}" -c "CREATE TABLE $name AS SELECT r, t FROM
      (SELECT dp_sum_report(x, $eps, $delta, $sens, '$m') r, sum(x) t FROM sums GROUP BY g) q" >/dev/null 2>"$work/$name.err" ||
    check "dp_sum_report $m: released" "released" "error: $(head -c 400 "$work/$name.err")"
  sample "${name}_value" var "dp_sum_report(x, $eps, $delta, $sens, '$m'): value" "V=$(l2 "$m" "$eps" "$delta" "$sens")$(kurt_of "$m")" "$SD" \
    "SELECT (r).value - t FROM $name"
  sample "${name}_width" tol "dp_sum_report $m at $conf: (ci_high - ci_low)/2 = $k x scale, noise_scale = scale, confidence" \
    "tol=1e-9" "scale:0.5,scale:2" \
    "SELECT x FROM $name, LATERAL (VALUES (((r).ci_high - (r).ci_low) / 2 / ($k * $scale)), ((r).noise_scale / $scale),
       ((r).confidence / $conf)) v(x)"
  sample "${name}_cover" cover "dp_sum_report $m at $conf: coverage (exact for continuous noise)" "p=$conf" "$SD" \
    "SELECT (r).value - t, (r).value - (r).ci_low, (r).ci_high - (r).value FROM $name"
}
report_sum rep_sum_laplace laplace 0.6 1e-5 3 0.95 "$(val "SELECT ln(20)")"
report_sum rep_sum_gauss analytic_gaussian 0.6 1e-5 3 0.8 "$(zq 0.8)"

# dp_count_report, laplace, epsilon 0.5: [max(0, v - W), v + W], W = ceil(b ln 20); the truth n
# is covered iff |rint(X)| <= W, i.e. |X| < W + 1/2: probability 1 - exp(-(W + 1/2)/b).
read -r cb cW <<< "$(val "SELECT scale, ceil(scale * ln(20)) FROM dp_calibrate('laplace', 0.5, 1e-5, 1, true)" | tr '|' ' ')"
q "CREATE TABLE rep_count AS SELECT r, n FROM (SELECT dp_count_report(0.5, 1e-5, 'laplace') r, count(*) n FROM cnt GROUP BY g) q" >/dev/null
sample rep_count_value var "dp_count_report(0.5, 1e-5, 'laplace'): value (rounded Laplace)" "V=$(count_l2 laplace 0.5 1e-5)" "$SD" \
  "SELECT (r).value - n FROM rep_count"
sample rep_count_width tol "dp_count_report laplace: ci_high - value = value - ci_low = W = ceil(b ln 20) = $cW, noise_scale = b" \
  "tol=1e-12" "scale:0.5,scale:2" \
  "SELECT x FROM rep_count, LATERAL (VALUES (((r).ci_high - (r).value) / $cW), (((r).value - (r).ci_low) / $cW), ((r).noise_scale / $cb)) v(x)"
sample rep_count_cover cover "dp_count_report laplace: coverage = 1 - exp(-(W + 1/2)/b)" \
  "p=$(val "SELECT 1 - exp(-($cW + 0.5) / $cb)")" "$SD" \
  "SELECT (r).value - n, (r).value - (r).ci_low, (r).ci_high - (r).value FROM rep_count"

# ------------------------------------------------------------------------------------------
# 5. dp_sum_vector, dimension 4, epsilon 0.9, delta 1e-5, l2 bound 1.5: each coordinate's
#    variance (dp_calibrate_vector's per_coordinate_variance), E|noise|^2 = mse, and the law of
#    |noise| (KS).  Catches: half the calibrated noise, noise on some coordinates only, the
#    coordinates' noise drawn as independent scalars instead of one vector (a different norm
#    law), the wrong bound or epsilon.
vector_checks() {  # name label mech family sql-returning-the-released-array truth-array(4) calib-args
  local name=$1 label=$2 m=$3 family=$4 sql=$5 truth=$6 cal=$7 pcv mse scale i kc kn
  # The kurtosis of a coordinate and of |noise|^2 (exact): Gaussian 3 and E[chi_4^4]/16 = 1.5;
  # l2 mechanism (|noise| ~ Gamma(4, theta), direction uniform) 3 T E[r^4]/((T + 2) E[r^2]^2) = 4.2
  # and E[r^4]/E[r^2]^2 = 840/400 = 2.1.
  if [ "$family" = chi ]; then kc=3; kn=1.5; else kc=4.2; kn=2.1; fi
  read -r pcv mse scale <<< "$(val "SELECT per_coordinate_variance, mse, scale FROM dp_calibrate_vector('$m', $cal)" | tr '|' ' ')"
  q "CREATE TABLE $name AS SELECT a, '$truth'::float8[] AS t FROM ($sql) q(a)" >/dev/null
  for i in 1 2 3 4; do
    sample "${name}_c$i" var "$label: coordinate $i" "V=$pcv;K=$kc" "$SD" "SELECT a[$i] - t[$i] FROM $name"
  done
  sample "${name}_norm2" var "$label: E|noise|^2 = mse" "V=$mse;mean=0;K=$kn" "$SD" \
    "SELECT sqrt((a[1] - t[1])^2 + (a[2] - t[2])^2 + (a[3] - t[3])^2 + (a[4] - t[4])^2) FROM $name"
  sample "${name}_ks" ks "$label: law of |noise|" "family=$family;T=4" "$SD" \
    "SELECT sqrt((a[1] - t[1])^2 + (a[2] - t[2])^2 + (a[3] - t[3])^2 + (a[4] - t[4])^2) / $scale FROM $name"
}
vector_checks vec_gauss "dp_sum_vector(v, 4, 0.9, 1e-5, 1.5, 'gaussian')" gaussian chi \
  "SELECT dp_sum_vector(v, 4, 0.9, 1e-5, 1.5, 'gaussian') FROM vec GROUP BY g" "{0.6,-0.8,0,0}" "4, 0.9, 1e-5, 1.5"
vector_checks vec_l2 "dp_sum_vector(v, 4, 0.9, 1e-5, 1.5, 'l2')" l2 gamma \
  "SELECT dp_sum_vector(v, 4, 0.9, 1e-5, 1.5, 'l2') FROM vec GROUP BY g" "{0.6,-0.8,0,0}" "4, 0.9, 1e-5, 1.5"
sample vec_auto var "dp_sum_vector(v, 4, 0.9, 1e-5, 1.5) [auto = $(val "SELECT mechanism_name FROM dp_calibrate_vector('auto', 4, 0.9, 1e-5, 1.5)")]: E|noise|^2 = mse" \
  "V=$(val "SELECT mse FROM dp_calibrate_vector('auto', 4, 0.9, 1e-5, 1.5)");mean=0;K=2.1" "$SD" \
  "SELECT sqrt((a[1] - 0.6)^2 + (a[2] + 0.8)^2 + a[3]^2 + a[4]^2) FROM (SELECT dp_sum_vector(v, 4, 0.9, 1e-5, 1.5) a FROM vec GROUP BY g) q"

# ------------------------------------------------------------------------------------------
# 6. The merges (dp_sum, dp_avg, dp_count, dp_sum_vector over partial sums, as dpagg's Citus
#    rewrite calls them; docs/guides/citus.md), called directly.  Catches a merge whose
#    release differs from the aggregate's: noise missing, halved, at another calibration.
sample merge_sum var "dpagg_merge_sum(numeric partials, 0.8, 1e-5, -3, 3, 'laplace')" "V=$(l2 laplace 0.8 1e-5 3)" "$SD" \
  "SELECT dpagg_merge_sum(s, n, 0.8, 1e-5, -3, 3, 'laplace', false) - 1.5
     FROM (SELECT g, sum(dpagg_quanta_sum(x, -3, 3)) s, count(x) n FROM sums GROUP BY g) q GROUP BY g"
sample merge_sum_bytea var "dpagg_merge_sum(16-byte partials, 0.8, 1e-5, -3, 3, 'analytic_gaussian')" \
  "V=$(l2 analytic_gaussian 0.8 1e-5 3);K=3" "$SD" \
  "SELECT dpagg_merge_sum(s, n, 0.8, 1e-5, -3, 3, 'analytic_gaussian', false) - 1.5
     FROM (SELECT g, dpagg_partial_sum(x, -3, 3) s, count(x) n FROM sums GROUP BY g) q GROUP BY g"
sample merge_count var "dpagg_merge_count(counts, 0.5, 1e-5, 'laplace')" "V=$(count_l2 laplace 0.5 1e-5)" "$SD" \
  "SELECT dpagg_merge_count(n, 0.5, 1e-5, 'laplace') - 60 FROM (SELECT g, count(*) n FROM cnt GROUP BY g) q GROUP BY g"
avg_checks mavg "dpagg_merge_avg(partials, 2.4, 1e-5, 0, 4, 'laplace')" 200 2 2 1.7 "$l2s" "$l2c" "$ws" "$wc" "$bs" \
  "SELECT dpagg_merge_avg(a, n, 2.4, 1e-5, 0, 4, 'laplace') FROM (SELECT g, sum(dpagg_quanta_avg(x, 0, 4)) a, count(x) n FROM avgt GROUP BY g) p GROUP BY g" \
  "SELECT dpagg_merge_avg_report(a, n, 2.4, 1e-5, 0, 4, 'laplace') FROM (SELECT g, sum(dpagg_quanta_avg(x, 0, 4)) a, count(x) n FROM avgt GROUP BY g) p GROUP BY g"
read -r mpcv <<< "$(val "SELECT per_coordinate_variance FROM dp_calibrate_vector('gaussian', 4, 0.9, 1e-5, 1.5)")"
sample merge_vector var "dpagg_merge_vector(partials, 4, 0.9, 1e-5, 1.5, 'gaussian'): all coordinates (independent)" "V=$mpcv;K=3" "$SD" \
  "SELECT a[i] - (ARRAY[0.6, -0.8, 0, 0])[i] FROM (SELECT dpagg_merge_vector(p, 4, 0.9, 1e-5, 1.5, 'gaussian') a
     FROM (SELECT g, dpagg_vquanta_sum(v, 4, 1.5) p FROM vec GROUP BY g) q GROUP BY g) r, generate_series(1, 4) i"

# ------------------------------------------------------------------------------------------
# 7. Per-unit aggregates over the private relation pu, L = 3, public groups (every key of pk
#    released): each group calibrated at (epsilon/3, delta/3).  Catches a per-unit aggregate
#    calibrated without the division by L (variance 9x too small for Laplace) or with it twice,
#    halves of dp_avg at epsilon/2 instead of epsilon/(2L), vectors at epsilon instead of
#    epsilon/L.  analytic_gaussian may instead use one Gaussian over the unit's L groups at the
#    full (epsilon, delta) and l2 sensitivity sqrt(L) B (src/pg/aggregates/aggregates.c, try_joint_gaussian),
#    whichever has the smaller l2: that is its truth.
PUB="FROM pk k LEFT JOIN pu p ON p.g = k.g GROUP BY k.g"
# The per-unit faults: Laplace noise at epsilon instead of epsilon/L has a third of the scale.
NOL="$SD,scale:0.3333:calibrated at epsilon instead of epsilon/L (L = 3: a third of the Laplace scale)"
sample unit_sum var "per-unit dp_sum(x, 1, 1e-5, 0, 2, 'laplace'), L = 3" "V=$(l2 laplace "1/3.0" "1e-5/3" 2)" "$NOL" \
  "SELECT dp_sum(p.x, 1, 1e-5, 0, 2, 'laplace') - 111 $PUB"
sample unit_sum_gauss var "per-unit dp_sum(x, 1, 1e-5, 0, 2, 'analytic_gaussian'), L = 3 (joint Gaussian if smaller)" \
  "V=$(val "SELECT least(a.l2, b.l2) FROM dp_calibrate('analytic_gaussian', 1/3.0, 1e-5/3, 2) a,
             dp_calibrate('analytic_gaussian', 1, 1e-5, sqrt(3) * 2 * (1 + sqrt(3) * 2^(-30))) b");K=3" "$SD" \
  "SELECT dp_sum(p.x, 1, 1e-5, 0, 2, 'analytic_gaussian') - 111 $PUB"
sample unit_count var "per-unit dp_count(1, 1e-5, 'laplace'), L = 3 (units)" "V=$(count_l2 laplace "1/3.0" "1e-5/3")" "$NOL" \
  "SELECT dp_count(1, 1e-5, 'laplace') - 60 $PUB"
# per-unit dp_avg over pua (6000 groups of 100 units, mu = 0.8), epsilon 10: each half of each
# group at 10/6 (b = 0.6, so N (1 - mu/B) / b = 33 noise scales from the clamp).
PUBA="FROM pka k LEFT JOIN pua p ON p.g = k.g GROUP BY k.g"
read -r ul2s ul2c uws uwc ubs <<< "$(avg_params "10/6.0" "1e-5/6" 1)"
avg_checks uavg "per-unit dp_avg(x, 10, 1e-5, 0, 2, 'laplace'), L = 3" 100 1 1 0.8 "$ul2s" "$ul2c" "$uws" "$uwc" "$ubs" \
  "SELECT dp_avg(p.x, 10, 1e-5, 0, 2, 'laplace') $PUBA" \
  "SELECT dp_avg_report(p.x, 10, 1e-5, 0, 2, 'laplace') $PUBA" \
  ",scale:0.3333:halves at epsilon/2 instead of epsilon/(2L) (a third of the Laplace scale)"
ub=$(val "SELECT scale FROM dp_calibrate('laplace', 1/3.0, 1e-5/3, 2)")
q "CREATE TABLE unit_rep AS SELECT dp_sum_report(p.x, 1, 1e-5, 0, 2, 'laplace') r $PUB" >/dev/null
sample unit_rep_value var "per-unit dp_sum_report(x, 1, 1e-5, 0, 2, 'laplace'), L = 3: value" "V=$(l2 laplace "1/3.0" "1e-5/3" 2)" "$NOL" \
  "SELECT (r).value - 111 FROM unit_rep"
sample unit_rep_width tol "per-unit dp_sum_report laplace, L = 3: half-width = b ln 20 at (epsilon/3, delta/3), noise_scale = b" \
  "tol=1e-9" "scale:0.5,scale:2" \
  "SELECT x FROM unit_rep, LATERAL (VALUES (((r).ci_high - (r).ci_low) / 2 / ($ub * ln(20))), ((r).noise_scale / $ub)) v(x)"
# per-unit dp_sum_vector: each unit's vector sum in a group is [0.1, 0.2, 0.3, 0.4] (inside the
# bound 1): truth 60 times that.
vector_checks unit_vec_l2 "per-unit dp_sum_vector(v, 4, 1, 1e-5, 1, 'l2'), L = 3" l2 gamma \
  "SELECT dp_sum_vector(p.v, 4, 1, 1e-5, 1, 'l2') $PUB" "{6,12,18,24}" "4, 1/3.0, 1e-5/3, 1"

# ------------------------------------------------------------------------------------------
# 8. Private group selection, L = 3, epsilon 1, delta 0.2 (dpagg.selection_*): the share of
#    groups of exactly n units released, n = 1, 2, 4, 7, against pi(n) of each strategy in closed
#    form (docs/partition_selection.md: optimal, laplace, gaussian with the sigma
#    dp_group_selection reports), and dp_group_selection's keep_one_unit against pi(1).
#    Catches: epsilon or delta not divided over L (pi(n) 1.5-5x too large), a wrong threshold,
#    keep decisions that are not the stated Bernoulli, a keep rate off by a factor of 2.
for s in optimal laplace gaussian; do
  read -r k1 sigma <<< "$(val "SELECT keep_one_unit, coalesce(details->>'sigma', '') FROM dp_group_selection(1, 0.2, 3, '$s')" | tr '|' ' ')"
  "${PSQL[@]}" -c "SET dpagg.selection_strategy = '$s'" -c "SET dpagg.selection_epsilon = 1" -c "SET dpagg.selection_delta = 0.2" \
    -c "SELECT n, count(*) FROM (SELECT g, dp_count(1, 1e-9, 'laplace') FROM sel GROUP BY g) r JOIN sel_class USING (g) GROUP BY n" \
    > "$work/sel_$s" 2> "$work/sel_$s.err" || check "group selection $s: released" "released" "error: $(head -c 400 "$work/sel_$s.err")"
  for units in 1 2 4 7; do
    k=$(awk -F'|' -v n="$units" '$1 == n {print $2}' "$work/sel_$s"); k=${k:-0}
    M=$(( units == 1 ? 30000 : 15000 ))
    printf '%s\t%s\t%s\t%s\t%s\n' "sel_${s}_$units" select "group selection $s, L = 3, (1, 0.2): groups of $units unit(s) released" \
      "strategy=$s;eps=1;delta=0.2;L=3;n=$units;k=$k;M=$M${sigma:+;sigma=$sigma}$([ "$units" = 1 ] && echo ";keep1=$k1")" \
      "L1,rate:0.5:keep rate halved,rate:2:keep rate doubled" >> "$manifest"
  done
done

# ------------------------------------------------------------------------------------------
# 9. Private quantiles (docs/quantiles.md): 4000 groups of 10 values all at 512.5, bounds
#    [0, 1024] (bins of width 1; the values' bin is 512, with 512 bins below and 511 above).
#    For the median (D = 1/2) every other bin has score 5; for p = 0.9 (D = 0.9) the bins below
#    score 9 and those above 1.  The share of releases in bin 512 against permute-and-flip's
#    exact chance (0.51 and 0.60 here).  Catches: epsilon halved or doubled in the weights (a
#    wrong sensitivity D, or epsilon not divided), the exponential mechanism in place of
#    permute-and-flip (0.39 and 0.47), a coin of the wrong law.
q "CREATE TABLE qn AS SELECT g, 512.5::float8 AS x FROM generate_series(1, 4000) g, generate_series(1, 10) j"
QF="qeps:0.5:epsilon halved in the bins' weights,qeps:2:epsilon doubled in the bins' weights,qem:1:the exponential mechanism instead of permute-and-flip"
sample q_median qhit "dp_median(x, 1.3, 0, 0, 1024): releases in the values' bin" \
  "w=1;eps=1.3;D=0.5;below=512;above=511;sb=5;sa=5" "$QF" \
  "SELECT dp_median(x, 1.3, 0, 0, 1024) - 512.5 FROM qn GROUP BY g"
sample q_p90 qhit "dp_percentile(x, 0.9, 11, 0, 0, 1024): releases in the values' bin" \
  "w=1;eps=11;D=0.9;below=512;above=511;sb=9;sa=1" "$QF" \
  "SELECT dp_percentile(x, 0.9, 11, 0, 0, 1024) - 512.5 FROM qn GROUP BY g"

# ------------------------------------------------------------------------------------------
# 10. Private variances (src/pg/aggregates/variance.c, src/core/variance): a release is three
#    noisy sums of y = clamp(x, lower, upper) - m, m the middle of the bounds and B their
#    half-width: (0) sum(y^2 - B^2/2), sensitivity B^2/2, (1) sum(y), sensitivity B, (2) the
#    count, sensitivity 1, rint()'ed and clamped at 0; each at nextafter(epsilon share_i, 0) (and
#    delta likewise), shares 0.287885/0.424227/0.287885; the statistic is computed from them
#    (mean = sum/n and m2 = squares/n + B^2/2 clamped, v = m2 - mean^2 clamped to [0, B^2],
#    times n/(n - 1) for the sample forms, its root for the standard deviations; NULL below 1 or
#    2 noisy values).  The release is one number, not the parts, so its law is simulated in
#    stats.py (VarianceLaw: the post-processing written there independently of dpagg, 200000
#    draws of random.Random with a fixed seed) from the true parts and Laplace noise of the
#    scales dp_explain reports per part (a fixed check first: laplace at (nextafter(epsilon
#    share, 0), nextafter(delta share, 0)) with dp_calibrate's sensitivity and scale).  The
#    count part of 'laplace' is continuous Laplace (sample_laplace) added on the release grid
#    (2^-39 or 2^-40 here) and then rint()'ed, as the simulation draws it (the discrete_laplace
#    mechanism would differ).  NULL releases are -1 (coalesce) in both laws.
#    Data: 20000 groups of the same 31 values, bounds [0, 8] (m = 4, B = 4): 2 x2, 3 x4, 4 x4,
#    5 x4, 6 x6, 7 x4, 8 x3, 12.5 x3 (clamped to 8) and a NULL (not counted): n = 30,
#    sum y = 44 (mean 0.37 B: off the centre), sum(y^2 - 8) = -68, var_pop 3.58 = 0.22 B^2.  The
#    estimator's derivatives are 1/n (squares), -2 mean/n (sum) and (B^2/2 - var + mean^2)/n
#    (count), so to first order the parts make 37 %, 37 % and 26 % of its error (printed), and by
#    simulation each part's noise halved leaves 0.70-0.79 of E[d^2]: all three matter.
#    dp_var_pop at epsilon 2, dp_stddev_samp at epsilon 5: at 2 a noisy variance clamped at 0
#    (0.9 % of releases) makes the root's error heavy-tailed (kurtosis about 11, against 5.6 at
#    5), which widens the band and costs power.
#    Two checks per line (stats.py), each failing by chance with probability at most 5e-9:
#      simks   two-sample Kolmogorov-Smirnov distance D between the n = 20000 releases and the
#              M = 200000 simulated ones.  DKW-Massart, P(sup|F_k - F| > e) <= 2 exp(-2 k e^2)
#              for any F (atoms, such as the clamp at 0, included), for each sample at 2.5e-9:
#              sup|F_n - F| <= e1 = sqrt(ln(4/5e-9)/(2n)) = 0.0226 and sup|F_M - F| <= e2 =
#              sqrt(ln(4/5e-9)/(2M)) = 0.0072 together with probability >= 1 - 5e-9, and then
#              D <= e1 + e2 = 0.0298 (triangle inequality): the band, rigorous.  A law at
#              distance >= 0.060 from the simulated one (0.0298 + the DKW deviation at 1e-9 for n
#              + e2) fails w.p. > 1 - 1e-9.
#      simvar  R = mean(d^2)/E[d^2], d = release - truth, E[d^2] the simulated law's (with the
#              linearised estimator as control variate: relative standard error 0.002): the var
#              bands (Bernstein below at the simulated kurtosis x 1.1 (4.4, 6.2) or the
#              sample's, studentized z <= 7 and R <= 2 above), widened by 7 standard errors of
#              the simulation; and the mean of d against the simulated mean (studentized, +-7).
#              Bands about [0.895, 1.09] (var_pop) and [0.875, 1.10] (stddev_samp).
#    Power, printed per line (100000 simulated releases per fault).  simvar: each part's noise
#    halved gives E[d^2] 0.70-0.79x, doubled 1.7-2.4x, the count released exactly 0.71x, all
#    past the limits of failure w.p. > 1 - 1e-9 (about 0.83x/1.19x for var_pop, 0.81x/1.23x for
#    stddev_samp).  simks: the doublings (distance 0.061-0.082) fail w.p. > 1 - 1e-9, the
#    halvings and the exact count (0.029-0.048) not with certainty.  Not detectable: epsilon split
#    in equal thirds (E[d^2] 1.04-1.08x, distance 0.007; the fixed dp_explain check catches it
#    where the plan makes the split); the squares and sum shares swapped gives 1.17x (var_pop,
#    not certain) and 1.29x (stddev_samp, certain).
#    Catches: a part drawn at the wrong scale (epsilon share, sensitivity B^2/2 or B, a factor 2),
#    a part not noised (the count exact) or its noise drawn and discarded, clamping or centring
#    wrong, NULLs counted, the post-processing's clamps or n/(n - 1) wrong.
#    Self-test: each release's deviation from the truth x0.5 and x2; the releases replaced by as
#    many simulated with one part's noise x0.5 or x2 or the count exact (simvar), or with one
#    part's noise x2 (simks).  Each must fail.
q "CREATE TABLE vart AS SELECT g, x FROM generate_series(1, 20000) g,
     unnest('{2,2,3,3,3,3,4,4,4,4,5,5,5,5,6,6,6,6,6,6,7,7,7,7,8,8,8,12.5,12.5,12.5,NULL}'::float8[]) x;
   ANALYZE vart" >/dev/null
# (greatest() and least() skip NULLs: the NULL rows are left out explicitly.)
VCL="least(greatest(x, 0), 8)"
fixed "every group of vart holds the same values (count, clamped centred sum and sum of squares, one NULL)" "1|20000|20000" \
  "$(val "SELECT count(DISTINCT (n, s, q)), count(*), sum(nulls) FROM (SELECT count(x) n, sum($VCL - 4) FILTER (WHERE x IS NOT NULL) s,
             sum(($VCL - 4)^2 - 8) FILTER (WHERE x IS NOT NULL) q, count(*) - count(x) nulls FROM vart GROUP BY g) a")"
read -r vn vS vQ vpop vsds <<< "$(val "SELECT count(x), sum($VCL - 4), sum(($VCL - 4)^2 - 8), var_pop($VCL), stddev_samp($VCL)
                                        FROM vart WHERE g = 1 AND x IS NOT NULL" | tr '|' ' ')"
# share X L: dpagg_share (src/pg/aggregates/aggregates.c), written again here: X / L, lowered
# until L times it is at most X (each of a unit's L groups' share).
share() {
  python3 -c "import math
s = $1 / $2
while s > 0 and s * $2 > $1:
    s = math.nextafter(s, 0)
print(repr(s))"
}
# var_parts CALL EPSILON [QUERY [L]]: dp_explain's per-part calibrations of QUERY (by default
# "SELECT g, CALL FROM vart GROUP BY g") -> "checks|b_squares b_sum b_count"; each part must be
# laplace at (nextafter(epsilon' share, 0), nextafter(1e-5' share, 0)) (computed here in Python),
# epsilon' = dpagg_share(epsilon, L) and 1e-5' = dpagg_share(1e-5, L) (one of a unit's L groups;
# themselves when L = 1), with dp_calibrate's sensitivity and scale, and the release's
# max_groups_contributed L (NULL when not per unit: 1).
var_parts() {
  local e L=${4:-1}
  e=($(python3 -c "import math
def share(x, L):
    s = x / L
    while s > 0 and s * L > x:
        s = math.nextafter(s, 0)
    return s
print(' '.join(repr(math.nextafter(share(x, $L) * s, 0)) for x in ($2, 1e-5) for s in (0.287885, 0.424227, 0.287885)))"))
  val "SELECT string_agg(CASE WHEN p->>'mechanism' = 'laplace' AND (p->>'epsilon')::float8 = e.eps
                                   AND (p->>'delta')::float8 = e.del AND (p->>'sensitivity')::float8 = (c.details->>'sensitivity')::float8
                                   AND (p->>'scale')::float8 = c.scale AND coalesce(x.max_groups_contributed, 1) = $L
                              THEN 'ok' ELSE 'part ' || i || ': L ' || coalesce(x.max_groups_contributed, 1) || ', ' || p::text END, ' ' ORDER BY i),
              string_agg(p->>'scale', ' ' ORDER BY i)
       FROM dp_explain('$(sed "s/'/''/g" <<< "${3:-SELECT g, $1 FROM vart GROUP BY g}")') x,
            jsonb_array_elements(x.details->'per_group') WITH ORDINALITY a(p, i)
            JOIN (VALUES (1, ${e[0]}::float8, ${e[3]}::float8, 8.0::float8, false), (2, ${e[1]}, ${e[4]}, 4.0, false),
                         (3, ${e[2]}, ${e[5]}, 1.0, true)) e(i, eps, del, sens, intv) USING (i),
            LATERAL dp_calibrate('laplace', e.eps, e.del, e.sens, e.intv) c
       WHERE x.release = 1"
}
# The faults each check must catch (see the power above).
VKS="scale:0.5,scale:2,vpart:0:2,vpart:1:2,vpart:2:2"
VVAR="scale:0.5,scale:2,vpart:0:0.5,vpart:0:2,vpart:1:0.5,vpart:1:2,vpart:2:0.5,vpart:2:2,vpart:2:0"
var_checks() {  # name form call epsilon truth seed
  local name=$1 form=$2 call=$3 eps=$4 truth=$5 seed=$6 parts chk bq bs bc P
  parts=$(var_parts "$call" "$eps")
  chk=${parts%%|*}
  read -r bq bs bc <<< "${parts#*|}"
  fixed "$call: dp_explain's three parts are laplace at nextafter(epsilon share, 0) with dp_calibrate's scales" "ok ok ok" "$chk"
  P="form=$form;B=4;n=$vn;S=$vS;Q=$vQ;truth=$truth;bq=$bq;bs=$bs;bc=$bc;seed=$seed;M=200000"
  sample "$name" simks "$call: law of the releases (KS against the simulated law)" "$P" "$VKS" \
    "SELECT coalesce($call, -1) FROM vart GROUP BY g"
  also "$name" simvar "$call: E[(release - truth)^2] and mean against the simulated law" "$P" "$VVAR"
}
var_checks var_pop var_pop "dp_var_pop(x, 2, 1e-5, 0, 8, 'laplace')" 2 "$vpop" 10
var_checks stddev_samp stddev_samp "dp_stddev_samp(x, 5, 1e-5, 0, 8, 'laplace')" 5 "$vsds" 11

# ------------------------------------------------------------------------------------------
# 11. Per unit, L = 3: dp_var_pop and dp_median over a private relation (docs/variance.md
#    section 7, docs/quantiles.md section 8): each unit's value in a group is its average there
#    (clamped to the bounds), and each of a unit's L groups is calibrated at epsilon / L (the
#    variance's parts at (epsilon_i / L, delta_i / L), the quantile's permute-and-flip at
#    epsilon / L), released through the public-groups form (every key of pkv).
#    Data (puv): 6000 groups (3 layers of 2000) of 30 units, every unit in exactly 3 groups (one
#    per layer, so L-sampling keeps every row), 2 rows per unit and group: x = a - 4 and a + 4,
#    z = 500.5 and 524.5.  The units' averages in a group are the same 30 a (2 x2, 3 x4, 4 x4,
#    5 x4, 6 x6, 7 x4, 8 x2, 12.5 x2, 9, -1; clamped as units' values to [0, 8]: 8 x5 and one 0)
#    and 512.5 (bin 512), while the rows themselves are spread (x from -5 to 16.5, z in bins 500
#    and 524), so the truths are the units' and not the rows'.
#    dp_var_pop(x, 6, 1e-5, 0, 8, 'laplace'): section 10's simks and simvar against the law
#    simulated from the units' parts (n = 30 units, sum y = 36, sum(y^2 - 8) = -68, var_pop 4.29,
#    first-order error shares 48/32/20 %) at the per-group scales dp_explain reports, themselves
#    checked first (a fixed check) against laplace at (nextafter(eps' share_i, 0),
#    nextafter(delta' share_i, 0)), eps' = dpagg_share(6, 3) and delta' = dpagg_share(1e-5, 3)
#    (recomputed in Python), with dp_calibrate's sensitivity and scale, and L = 3.  Epsilon 6 (2
#    per group) keeps releases clamped at 0 rare (0.2 % of the simulated law).
#    dp_median(z, 1.35, 0, 0, 1024): section 9's qhit against permute-and-flip's exact chance at
#    epsilon/3 = 0.45 (30 units' values in bin 512, so every other bin scores 15: chance 0.583),
#    after a fixed check that dp_explain's group_epsilon is dpagg_share(1.35, 3), with L = 3,
#    sensitivity 1/2 and permute_and_flip.
#    Power, printed per line (measured at n = 6000 releases; variance: 100000 simulated releases
#    per fault).  simvar fails w.p. > 1 - 1e-9 at E[d^2] <= 0.69x or >= 1.49x, simks at a
#    distance >= 0.098.  Every part at epsilon_i instead of epsilon_i / L: E[d^2] 0.11x, distance
#    0.23; every part at epsilon_i / L^2: 6.4x, 0.25: both certain in both checks.  One part
#    alone not divided by L: the squares (0.60x) certain in simvar; the sum (0.71x) and the count
#    (0.78x) not certain, nor any of the three in simks (0.036-0.070): the fixed dp_explain check
#    sees those only where dp_explain's calibration (dpagg_variance_calibrations) errs as the
#    release's (dpagg_variance_site_params) does.  The median (band [0.545, 0.620]; a rate off by
#    more than 14 % certain): at epsilon instead of epsilon/L the chance is 1.000, at epsilon/L^2
#    0.009, epsilon halved or doubled 0.029 or 1.000, the exponential mechanism 0.455: all
#    certain.  The rows in place of the units' averages are certain too: the rows' median makes
#    bins 500 to 524 all score 0, so the chance of bin 512 is at most 1/25; the rows' variance
#    (10.9), or the units' averages of clamped rows (1.85), puts the releases' mean 2.4 or more
#    release standard deviations (about 1) from the truth 4.29 (mean z beyond 100).
#    Self-test: each variance release's deviation x0.5 and x2; the releases replaced by as many
#    simulated with every part at epsilon_i (a third of each scale) or at epsilon_i / L^2 (three
#    times), and (simvar) the squares part alone at epsilon_0; the median's hit count as at
#    epsilon, at epsilon/L^2, at epsilon halved or doubled, or the exponential mechanism.  Each
#    must fail.
q "CREATE TABLE pkv AS SELECT g FROM generate_series(0, 5999) g;
   CREATE TABLE puv AS SELECT uid, g,
       (ARRAY[2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 12.5, 12.5, 9, -1])[pos + 1]::float8
         + (2 * j - 1) * 4 AS x,
       512.5::float8 + (2 * j - 1) * 12 AS z
     FROM (SELECT u AS uid, l * 2000 + ((u::bigint * (ARRAY[1, 7, 11])[l + 1]) % 60000) / 30 AS g,
                  ((u::bigint * (ARRAY[1, 7, 11])[l + 1]) % 60000) % 30 AS pos
             FROM generate_series(0, 59999) u, generate_series(0, 2) l) a, generate_series(0, 1) j;
   ANALYZE pkv; ANALYZE puv" >/dev/null
# Each unit's value in a group: its average there, clamped to the bounds.
UAVG="(SELECT g, uid, least(greatest(avg(x), 0), 8) AS c, avg(z) AS zu, count(*) AS rows FROM puv GROUP BY g, uid)"
fixed "puv holds what the truths assume (6000 groups of the same 30 units' values, 3 groups per unit, 2 rows per unit and group)" \
  "1|6000|60000|180000|512.5" \
  "$(val "SELECT (SELECT count(DISTINCT (n, s, q)) || '|' || count(*) FROM (SELECT g, count(*) n, sum(c - 4) s, sum((c - 4)^2 - 8) q
                                                      FROM $UAVG a GROUP BY g) b)
          || '|' || (SELECT count(*) FROM (SELECT uid FROM puv GROUP BY uid HAVING count(DISTINCT g) = 3) d)
          || '|' || (SELECT count(*) FROM $UAVG a WHERE rows = 2)
          || '|' || (SELECT CASE WHEN min(zu) = max(zu) THEN min(zu)::text ELSE 'several' END FROM $UAVG a)")"
read -r un uS uQ upop <<< "$(val "SELECT count(*), sum(c - 4), sum((c - 4)^2 - 8), var_pop(c) FROM $UAVG a WHERE g = 0" | tr '|' ' ')"
q "SELECT dp_protect('puv', 'uid', 3)" >/dev/null
PUBV="FROM pkv k LEFT JOIN puv p ON p.g = k.g GROUP BY k.g"
ucall="dp_var_pop(p.x, 6, 1e-5, 0, 8, 'laplace')"
uparts=$(var_parts "$ucall" 6 "SELECT k.g, $ucall $PUBV" 3)
read -r ubq ubs ubc <<< "${uparts#*|}"
fixed "per-unit $ucall, L = 3: dp_explain's three parts per group are laplace at nextafter((epsilon/3)' share, 0) with dp_calibrate's scales" \
  "ok ok ok" "${uparts%%|*}"
# The faults: all three parts at epsilon_i (a third of each Laplace scale) or at epsilon_i / 9
# (three times), and (simvar) the squares part alone at epsilon_0 (not divided by L).
UNOL="vall:0.3333:every part at epsilon_i instead of epsilon_i/L (a third of each scale),vall:3:every part at epsilon_i/L^2 (three times each scale)"
UP="form=var_pop;B=4;n=$un;S=$uS;Q=$uQ;truth=$upop;bq=$ubq;bs=$ubs;bc=$ubc;seed=12;M=200000;L=3"
sample unit_var simks "per-unit $ucall, L = 3: law of the releases (KS against the simulated law)" "$UP" "scale:0.5,scale:2,$UNOL" \
  "SELECT coalesce($ucall, -1) $PUBV"
also unit_var simvar "per-unit $ucall, L = 3: E[(release - truth)^2] and mean against the simulated law" "$UP" \
  "scale:0.5,scale:2,$UNOL,vpart:0:0.3333:the squares part at epsilon_0 instead of epsilon_0/L"
uge=$(share 1.35 3)
fixed "per-unit dp_median(z, 1.35, 0, 0, 1024): dp_explain's group_epsilon is dpagg_share(1.35, 3) = $uge, L = 3, sensitivity 1/2, permute_and_flip" \
  "t|3|0.5|permute_and_flip" \
  "$(val "SELECT group_epsilon = $uge::float8, max_groups_contributed, sensitivity, mechanism
          FROM dp_explain('SELECT k.g, dp_median(p.z, 1.35, 0, 0, 1024) $PUBV') WHERE release = 1")"
sample unit_median qhit "per-unit dp_median(z, 1.35, 0, 0, 1024), L = 3: releases in the units' bin at epsilon/3" \
  "w=1;eps=$uge;D=0.5;below=512;above=511;sb=15;sa=15" \
  "$QF,qeps:3:calibrated at epsilon instead of epsilon/L,qeps:0.3333:calibrated at epsilon/L^2" \
  "SELECT dp_median(p.z, 1.35, 0, 0, 1024) - 512.5 $PUBV"

# ------------------------------------------------------------------------------------------
# 12. A quantile without bounds (docs/automatic_bounds.md, "Quantiles"): 4000 groups of 101
#    values at 512.5 and 99 at 1000, all in the bin of magnitude [512, 1024), whose 32 cells are
#    16 wide.  dp_median(x, 2, 0): epsilon_b = 1 buys the histogram (threshold 19: that bin counts
#    and no other does but with probability 1e-6 per release), so the candidates are that bin's
#    32 cells, and permute-and-flip runs at the rest, epsilon_q = 1: the cell of 512.5 has score
#    0, the 29 empty cells and the cell of 1000 score 1 (the median's rank 100 is one from their
#    101), the top cell 100.  The share of releases in [512, 528) against permute-and-flip's
#    exact chance at epsilon_q = 1 (0.083).  Catches the quantiles at all of epsilon (0.21) or at
#    a quarter of it (0.056).  (The exponential mechanism's chance here is within 1 % of
#    permute-and-flip's: section 9 tells the two apart.)
q "CREATE TABLE qa AS SELECT g, CASE WHEN j <= 101 THEN 512.5 ELSE 1000 END::float8 AS x FROM generate_series(1, 4000) g, generate_series(1, 200) j"
fixed "dp_median(x, 2, 0) without bounds: dp_explain's histogram at epsilon_b = nextafter(1, 0), threshold 19, the quantile at the rest" \
  "t|19|t" \
  "$(val "SELECT (details->'bounds'->>'epsilon')::float8 = 0.9999999999999999, (details->'bounds'->>'threshold')::float8,
                 abs(group_epsilon - 1) < 1e-12
          FROM dp_explain('SELECT dp_median(x, 2, 0) FROM qa GROUP BY g') WHERE release = 1")"
sample auto_median qhit "dp_median(x, 2, 0) without bounds: releases in the cell of score 0 at epsilon_q = 1" \
  "w=16;eps=1;D=0.5;below=0;above=30;sb=1;sa=1" \
  "qeps:2:the quantile at all of epsilon,qeps:0.5:the quantile at a quarter of epsilon" \
  "SELECT dp_median(x, 2, 0) - 520 FROM qa GROUP BY g"

# ------------------------------------------------------------------------------------------
# 13. The histogram's range drawn run by run (docs/automatic_bounds.md section 2, "Drawing only
#    what decides the range"): 4000 groups of 19 values at 1.5 and 17 at 600, in two bins of
#    magnitude.  dp_median(x, 2, 0) draws the histogram at epsilon_b = 1 (scale 1, threshold 19)
#    and is NULL when no bin reaches it: the bin of 19 values reaches it with chance 1/(1 + p),
#    the bin of 17 with p^2/(1 + p), each of the 189 empty bins with p^19/(1 + p) (p = e^-1), so
#    the share of NULL releases is their product of misses, 0.2423.  Exact two-sided binomial
#    test.  Catches the histogram drawn at all of epsilon (0.117) or without noise (0).
q "CREATE TABLE hb AS SELECT g, CASE WHEN j <= 19 THEN 1.5 ELSE 600 END::float8 AS x FROM generate_series(1, 4000) g, generate_series(1, 36) j"
sample auto_reach reach "dp_median(x, 2, 0) without bounds: the share of groups whose histogram has no bin reaching the threshold" \
  "s=1;t=19;counts=19 17" \
  "heps:2:the histogram at all of epsilon,heps:1e9:the bins' counts without noise" \
  "SELECT (dp_median(x, 2, 0) IS NULL)::int FROM hb GROUP BY g"

# ------------------------------------------------------------------------------------------
# The statistics.
mode=""
[ -n "$selftest" ] && mode=selftest
python3 tests/noise/stats.py "$manifest" "$work" $mode > "$work/verdicts" 2> "$work/stats.err"
rc=$?
while IFS=$'\t' read -r verdict desc; do
  check "$desc" PASS "$verdict"
done < "$work/verdicts"
check "the statistics ran to the end (tests/noise/stats.py)" 0 "$rc$([ -s "$work/stats.err" ] && printf ': %s' "$(head -c 300 "$work/stats.err" | tr '\n' ' ')")"
fixed "every check in the manifest was evaluated" "$(wc -l < "$manifest")" "$(wc -l < "$work/verdicts")"

echo "noise: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
