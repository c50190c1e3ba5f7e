"""The catalog of deliberate faults ("mutants") of dpagg's mutation testing (docs/mutation.md).

Each fault replaces EXACTLY ONE occurrence of `find` in `file` by `replace` (tests/mutation/plant.py
refuses a `find` that occurs zero or several times), the library is rebuilt and installed, and at
least one of `killers` must FAIL (tests/mutation/run.sh).  A fault that every killer passes is a
hole in the test suite: a refactor that made the same mistake would ship.

Fields:
  id       short kebab-case name
  file     the source file, relative to the repository root
  find     exact text, unique in that file (may span lines; tabs are written \\t)
  replace  the text it becomes; the mutant must still compile (types and braces kept)
  what     one sentence: the fault, and why it breaks the privacy promise
  killers  tests that must notice it, cheapest first (the runner stops at the first that fails):
             unit                  make unit (GoogleTest, src/core)
             regress:<f>[,<f>...]  pg_regress files of sql/, run after 00_setup and followed by
                                   99_restore_defaults (the runner adds both).  Files after
                                   45_superuser_unlimited need it and 50_statistics before them
                                   (their expected output assumes an unlimited superuser that
                                   has spent 50_statistics' delta, and 99_restore_defaults checks
                                   both ran), so those are listed too.
             restricted, ledger, security, dump, wal, citus, noise, dp_tester
                                   tests/<name>/run.sh (citus says "skipped", and passes, where
                                   Citus cannot be installed: such a fault is not judged there)

New code adds its faults here (docs/mutation.md, "Adding faults").

Run this file to check the catalog: every file exists, every `find` occurs exactly once, every
killer is known (regress files exist), ids are unique; it prints the faults per killer.
"""

# Prerequisites of the regress files after 45_superuser_unlimited (see above).
_LATE = "45_superuser_unlimited,50_statistics"

FAULTS = [
    # ---------------------------------------------------------------- core: noise -------------
    {
        "id": "laplace-sampler-scale-halved",
        "file": "src/core/samplers.cpp",
        "find": "return rng.random_bit() ? b * e : -b * e;",
        "replace": "return rng.random_bit() ? b * e / 2 : -b * e / 2;",
        "what": "The shared Laplace sampler draws Laplace(b/2) while every calibration certifies "
                "Laplace(b), so each Laplace (and l2 at dimension 1) release is only 2-epsilon-DP.",
        "killers": ["unit:LaplaceSampler.*:MechanismNoise.*", "noise", "dp_tester"],
    },
    {
        "id": "analytic-gaussian-sigma-halved",
        "file": "src/core/mechanisms/gaussian_rules/gaussian_rules.cpp",
        "find": "finish(analytic_gaussian_sigma(req.epsilon, req.delta, req.sensitivity), req, cal);",
        "replace": "finish(0.5 * analytic_gaussian_sigma(req.epsilon, req.delta, req.sensitivity), req, cal);",
        "what": "The analytic Gaussian (and the vector 'gaussian', and auto when it wins) is "
                "calibrated at half the certified sigma, whose privacy profile exceeds the "
                "requested delta.",
        "killers": ["unit:AnalyticGaussian*", "regress:" + _LATE + ",60_calibrate", "noise", "dp_tester"],
    },
    {
        "id": "staircase-decay-doubled",
        "file": "src/core/mechanisms/staircase/staircase.cpp",
        "find": "const double g = std::floor(-std::log(rng.uniform_open01()) / eps);",
        "replace": "const double g = std::floor(-std::log(rng.uniform_open01()) / (2 * eps));",
        "what": "The staircase sampler's geometric period count decays like e^(-2 eps) per "
                "sensitivity instead of e^(-eps), a narrower law than the pure eps-DP one it is "
                "certified for.",
        "killers": ["unit:StaircaseSampler.*", "dp_tester"],
    },
    {
        "id": "tulap-outer-mass-halved",
        "file": "src/core/mechanisms/tulap/tulap.cpp",
        "find": "if (rng.uniform_open01() < p_outer) {",
        "replace": "if (rng.uniform_open01() < p_outer / 2) {",
        "what": "The Tulap sampler puts half the certified mass on the law's outer (discrete "
                "Laplace) part, concentrating the noise near 0: the density ratio between shifts "
                "exceeds e^eps.",
        "killers": ["unit:TulapSampler.*", "dp_tester"],
    },
    {
        "id": "discrete-laplace-scale-halved",
        "file": "src/core/mechanisms/discrete_laplace/discrete_laplace.cpp",
        "find": "return std::floor(-s * std::log(rng.uniform_open01()));",
        "replace": "return std::floor(-s / 2 * std::log(rng.uniform_open01()));",
        "what": "Both geometric draws of the discrete Laplace mechanism use scale s/2, so integer "
                "counts and sums are released with noise for 2 eps.",
        "killers": ["unit:DiscreteLaplaceNoise.*", "noise", "dp_tester"],
    },
    {
        "id": "l2-vector-radius-halved",
        "file": "src/core/mechanisms/l2/l2.cpp",
        "find": "r *= cal.scale;",
        "replace": "r *= cal.scale / 2;",
        "what": "The l2 mechanism's radius is Gamma(T, theta/2) instead of Gamma(T, theta), so "
                "every dp_sum_vector release through it is at least 2-epsilon-DP only.",
        "killers": ["unit:VectorSampler.*", "noise", "dp_tester"],
    },
    {
        "id": "interval-halfwidth-halved",
        "file": "src/core/interval.cpp",
        "find": "return std::nextafter(w + release_grid(cal), INFINITY);",
        "replace": "return std::nextafter(w / 2 + release_grid(cal), INFINITY);",
        "what": "dp_noise_interval and the report forms state half the noise quantile, so their "
                "intervals cover the truth far less often than the confidence they claim.",
        "killers": ["unit:NoiseInterval.*:NoiseTail.*", "regress:" + _LATE + ",55_report", "noise"],
    },
    {
        "id": "secure-random-constant-pool",
        "file": "src/core/random.cpp",
        "find": "if (RAND_bytes(reinterpret_cast<unsigned char*>(p->words), sizeof(p->words)) != 1)\n"
                "    secure_bytes(p->words, sizeof(p->words));",
        "replace": "for (size_t i = 0; i < kPoolWords; ++i)\n"
                   "    p->words[i] = 0x9E3779B97F4A7C15ULL * (i + 1);",
        "what": "The noise pool is filled with the same constant sequence at every refill and in "
                "every process, so all noise is predictable and can be subtracted.",
        "killers": ["unit:SecureRandom.*:Uniform*", "dp_tester"],
    },
    # ---------------------------------------------------------------- core: accounting --------
    {
        "id": "basic-composition-max-not-sum",
        "file": "src/core/accounting.cpp",
        "find": "a.epsilon_all += c.epsilon;",
        "replace": "a.epsilon_all = a.epsilon_all > c.epsilon ? a.epsilon_all : c.epsilon;",
        "what": "Basic composition keeps the largest epsilon instead of the sum, so a budget never "
                "runs out under repeated releases.",
        "killers": ["unit:Accounting.*", "regress:" + _LATE + ",70_budgets"],
    },
    {
        "id": "zcdp-rho-not-composed",
        "file": "src/core/accounting.cpp",
        "find": "a.rho += c.rho;",
        "replace": "a.rho = c.rho;",
        "what": "Under zcdp accounting an account remembers only the last release's rho, so the "
                "converted epsilon spent never grows with the number of releases.",
        "killers": ["unit:Accounting.*", "regress:" + _LATE + ",70_budgets"],
    },
    {
        "id": "release-cap-ignored",
        "file": "src/core/accounting.cpp",
        "find": "if (exceeds_cap(epsilon, a.cap)) return DPAGG_REFUSE_CAP;",
        "replace": "if (false && exceeds_cap(epsilon, a.cap)) return DPAGG_REFUSE_CAP;",
        "what": "A role's per-release epsilon cap (max_release_epsilon) is never enforced, so one "
                "query may spend the whole budget at once.",
        "killers": ["unit:Accounting.*", "regress:" + _LATE + ",70_budgets", "security"],
    },
    {
        "id": "charged-delta-dropped",
        "file": "src/core/capi.cpp",
        "find": "return cal != nullptr && cal->delta_bound == 0.0 ? 0.0 : delta;",
        "replace": "return cal != nullptr && cal->delta_bound >= 0.0 ? 0.0 : delta;",
        "what": "Every release is charged delta 0, also by mechanisms whose certificate needs a "
                "delta (the Gaussians), so a role's delta budget never runs out.",
        "killers": ["unit:ChargedDelta.*", "regress:" + _LATE + ",70_budgets"],
    },
    # ---------------------------------------------------------------- core: quantiles ---------
    {
        "id": "quantile-sensitivity-halved",
        "file": "src/core/quantile/quantile.cpp",
        "find": "const u128 D = std::max<u128>(P, kOne - P);  // the scores' sensitivity, >= 2^59",
        "replace": "const u128 D = std::max<u128>(P, kOne - P) / 2;  // the scores' sensitivity, >= 2^59",
        "what": "Permute-and-flip weighs the bins' scores by epsilon / D with D half the scores' "
                "sensitivity, so a quantile release is only 2-epsilon-DP.",
        "killers": ["unit:Quantile.*"],
    },
    {
        "id": "quantile-coin-cut-short",
        "file": "src/core/quantile/quantile.cpp",
        "find": "  const u128 limit = (~static_cast<u128>(0)) >> 1;  // den * K below 2^127\n"
                "  uint64_t k = 1;\n"
                "  for (;;) {\n"
                "    const bool success = den <= limit / k ? uniform_below(den * k, rng) < num\n"
                "                                          : bernoulli_ratio(cpp_int(num), cpp_int(den) * k, rng);",
        "replace": "  const u128 limit = static_cast<u128>(1) << 120;\n"
                   "  uint64_t k = 1;\n"
                   "  for (;;) {\n"
                   "    const bool success = den <= limit / k ? uniform_below(den * k, rng) < num\n"
                   "                                          : false;",
        "what": "A coin whose step Bernoulli(gamma / K) outgrows a tighter machine-integer limit "
                "stops as if it failed instead of going on exactly (as a restart did, found by an "
                "attack review), so coins with denominators near 2^120 come up heads with the "
                "wrong probability and the privacy bound breaks.",
        "killers": ["unit:Quantile.*"],
    },
    {
        "id": "quantile-uncharged",
        "file": "src/pg/aggregates/percentile.c",
        "find": "dpagg_site_set_charge(site, p->epsilon, 0.0, parts, nparts);",
        "replace": "dpagg_site_set_charge(site, p->epsilon / 2, 0.0, parts, nparts);",
        "what": "dp_percentile's releases are charged half their epsilon, so a role releases "
                "quantiles worth twice what its budget records.",
        "killers": ["regress:" + _LATE + ",82_percentile"],
    },
    {
        "id": "quantile-unit-epsilon-not-divided",
        "file": "src/pg/aggregates/percentile.c",
        "find": "p->group_epsilon = dpagg_share(p->epsilon, p->L);",
        "replace": "p->group_epsilon = p->epsilon;",
        "what": "Over a private relation each group of a quantile releases at the call's epsilon "
                "instead of epsilon / L, so a unit that reaches L groups is protected only at L "
                "times the epsilon charged.",
        "killers": ["regress:" + _LATE + ",82_percentile", "noise"],
    },
    {
        "id": "no-group-charged",
        "file": "src/pg/aggregates/site.c",
        "find": "!dpagg_agg_forms_no_group((Agg *) as->ss.ps.plan))",
        "replace": "true)",
        "what": "A grouped level whose WHERE is false whatever the data (it forms no group and "
                "releases nothing) is charged all the same, and on Citus a query pruned to no "
                "shard in the worker form is charged twice (by its grant and by the empty task "
                "Citus runs on the coordinator): budget spent with nothing released.",
        "killers": ["regress:" + _LATE + ",70_budgets", "citus"],
    },
    # ---------------------------------------------------------------- automatic bounds -------
    {
        "id": "auto-sum-overspent",
        "file": "src/pg/aggregates/auto_bounds.c",
        "find": "p->epsilon_sum = nextafter(epsilon - p->epsilon_bounds, 0);",
        "replace": "p->epsilon_sum = epsilon;",
        "what": "A call without bounds (dp_sum, dp_avg, the quantiles, the variances) releases at the call's whole "
                "epsilon after spending half of it on the bounds' histogram, so the release is "
                "1.5-epsilon-DP while epsilon is charged.",
        "killers": ["regress:" + _LATE + ",84_auto_bounds,85_auto_percentile,86_auto_variance"],
    },
    {
        "id": "unit-average-underflow",
        "file": "src/pg/query/bound.c",
        "find": "dpagg_function_oid(lc_schema, \"dpagg_fdiv\", 2, div_types)",
        "replace": "(div_types[0] = F_FLOAT8DIV)",
        "what": "A unit's average is computed by float8div, whose underflow error (a subnormal sum "
                "over two or more values) a query can aim at one unit's value: one error or not "
                "tells that value, at any epsilon.",
        "killers": ["regress:" + _LATE + ",84_auto_bounds"],
    },
    {
        "id": "auto-unit-not-divided",
        "file": "src/pg/aggregates/auto_bounds.c",
        "find": "e = dpagg_share(e, L);",
        "replace": "e = e;",
        "what": "dp_sum, dp_avg and the variances without bounds over a private relation run each of "
                "a unit's L groups at the call's epsilon instead of epsilon / L: L times the "
                "epsilon charged.",
        "killers": ["regress:" + _LATE + ",84_auto_bounds,86_auto_variance"],
    },
    {
        "id": "auto-quantile-overspent",
        "file": "src/pg/aggregates/percentile.c",
        "find": "p->group_epsilon = rest;",
        "replace": "p->group_epsilon = p->epsilon;",
        "what": "dp_percentile without bounds runs permute-and-flip at the call's whole epsilon after "
                "spending half of it on the histogram of magnitudes: 1.5 epsilon released, epsilon "
                "charged.",
        "killers": ["regress:" + _LATE + ",85_auto_percentile"],
    },
    {
        "id": "auto-quantile-unit-not-divided",
        "file": "src/pg/aggregates/percentile.c",
        "find": "dpagg_auto_histogram(p->group_epsilon,",
        "replace": "dpagg_auto_histogram(p->epsilon,",
        "what": "dp_percentile without bounds over a private relation runs each of a unit's L groups "
                "at the call's epsilon instead of epsilon / L: L times the epsilon charged.",
        "killers": ["regress:" + _LATE + ",85_auto_percentile"],
    },
    {
        "id": "auto-quantile-outside-dropped",
        "file": "src/core/quantile/quantile.cpp",
        "find": "const int c = std::min(std::max(cells[i], first), last) - first;",
        "replace": "if (cells[i] < first || cells[i] > last) continue;\n    const int c = cells[i] - first;",
        "what": "A quantile without bounds drops the values outside the range the histogram found "
                "instead of counting them in its end cells, so the ranks (and the answer) ignore "
                "every value the range cut off.",
        "killers": ["unit:Quantile.WithoutBounds*"],
    },
    {
        "id": "auto-sum-outliers-unclamped",
        "file": "src/pg/aggregates/auto_bounds.c",
        "find": "total += (__int128) bins[j].count * (__int128) llrint(ldexp(upper, -qexp));",
        "replace": "total += shift_round(bins[j].sum, qexp - dpagg_bounds_quantum_exp(j));",
        "what": "dp_sum without bounds adds the values above the chosen upper bound as they are, "
                "so one value moves the sum by more than the sensitivity the noise is calibrated for.",
        "killers": ["regress:" + _LATE + ",84_auto_bounds"],
    },
    {
        "id": "auto-avg-overspent",
        "file": "src/pg/aggregates/auto_bounds.c",
        "find": "p->part_epsilon = avg ? p->epsilon_sum / 2 : p->epsilon_sum;",
        "replace": "p->part_epsilon = p->epsilon_sum;",
        "what": "dp_avg without bounds releases its sum and its count each at the whole of what "
                "the bounds leave, so the release spends more epsilon than is charged.",
        "killers": ["regress:" + _LATE + ",84_auto_bounds"],
    },
    {
        "id": "auto-variance-overspent",
        "file": "src/pg/aggregates/auto_variance.c",
        "find": "p->part_epsilon = p->epsilon_sum;",
        "replace": "p->part_epsilon = epsilon;",
        "what": "dp_var_pop without bounds releases its three parts at the call's whole epsilon "
                "after spending half of it on the histogram, so the release is 1.5-epsilon-DP "
                "while epsilon is charged.",
        "killers": ["regress:" + _LATE + ",86_auto_variance"],
    },
    {
        "id": "auto-variance-outliers-unclamped",
        "file": "src/core/variance/auto_variance.cpp",
        "find": "if (j > hi_bin) {",
        "replace": "if (j > DPAGG_BOUNDS_BINS) {",
        "what": "dp_var_pop without bounds takes the values of the bins above the chosen range as "
                "they are instead of at its upper bound, so one value moves the sums by far more "
                "than the sensitivities the noise is calibrated for.",
        "killers": ["regress:" + _LATE + ",86_auto_variance", "unit:AutoVariance.*"],
    },
    {
        "id": "auto-range-empty-runs-skipped",
        "file": "src/core/bounds/noisy_range.cpp",
        "find": "if (k < std::abs(end - j)) return j + dir * static_cast<int>(k);",
        "replace": "(void) k;",
        "what": "The histogram of the forms without bounds never lets an empty bin reach the "
                "threshold (its runs are passed over without their draw), so the range is a "
                "function of the occupied bins' noise only: the law of the noisy histogram the "
                "privacy argument is about is not the one released (an empty bin next to a "
                "neighbour's one value would never count).",
        "killers": ["unit:Bounds.*"],
    },
    # ---------------------------------------------------------------- variances --------------
    {
        "id": "variance-squares-sensitivity-halved",
        "file": "src/core/variance/variance.cpp",
        "find": "p.sensitivity[DPAGG_VARIANCE_SQUARES] = p.bound * p.bound / 2;",
        "replace": "p.sensitivity[DPAGG_VARIANCE_SQUARES] = p.bound * p.bound / 4;",
        "what": "The sum of squares of dp_var_pop is calibrated for half its sensitivity B^2/2, so "
                "a variance release is not (epsilon, delta)-DP: one value moves it twice as far "
                "as the noise is made for.",
        "killers": ["unit:Variance.*", "noise"],
    },
    {
        "id": "variance-shares-overspent",
        "file": "src/core/variance/variance.h",
        "find": "{0.287885, 0.424227, 0.287885}",
        "replace": "{0.333333, 0.424227, 0.287885}",
        "what": "The three parts of a variance are calibrated at shares of epsilon that add up to "
                "more than 1, so the release spends more epsilon than the call's, which is all "
                "that is charged.",
        "killers": ["unit:Variance.*"],
    },
    {
        "id": "variance-interval-sample-factor-dropped",
        "file": "src/core/variance/variance.cpp",
        "find": "vhi = std::nextafter(vhi * (nmin / (nmin - 1)), INFINITY);",
        "replace": "vhi = std::nextafter(vhi, INFINITY);",
        "what": "dp_var_samp_report's interval leaves out the factor n/(n - 1) at its high end, "
                "so it can miss the sample variance it claims to hold (accuracy promise).",
        "killers": ["unit:Variance.*"],
    },
    {
        "id": "variance-count-exact",
        "file": "src/pg/aggregates/variance.c",
        "find": "c = rint(dpagg_draw(&p->rplan[DPAGG_VARIANCE_COUNT], (__int128) st->n));",
        "replace": "c = (double) st->n;",
        "what": "dp_var_pop's count part is released without its noise, so the number of values "
                "in a group leaks exactly through every variance.",
        "killers": ["noise"],
    },
    {
        "id": "variance-unit-epsilon-not-divided",
        "file": "src/pg/aggregates/variance.c",
        "find": "dpagg_variance_plan_init(dpagg_share(p->epsilon, p->L), dpagg_share(p->delta, p->L),",
        "replace": "dpagg_variance_plan_init(p->epsilon, p->delta,",
        "what": "Over a private relation each group of a variance is calibrated at the call's "
                "epsilon instead of epsilon / L, so a unit that reaches L groups is protected "
                "only at L times the epsilon charged.",
        "killers": ["regress:" + _LATE + ",83_variance", "noise"],
    },
    {
        "id": "variance-uncharged",
        "file": "src/pg/aggregates/variance.c",
        "find": "dpagg_site_set_charge(site, p->epsilon, p->delta, parts, DPAGG_VARIANCE_PARTS);",
        "replace": "dpagg_site_set_charge(site, p->epsilon / 2, p->delta, parts, DPAGG_VARIANCE_PARTS);",
        "what": "dp_var_pop's releases are charged half their epsilon, so a role releases "
                "variances worth twice what its budget records.",
        "killers": ["regress:" + _LATE + ",83_variance"],
    },
    # ---------------------------------------------------------------- core: selection ---------
    {
        "id": "selection-laplace-threshold-lowered",
        "file": "src/core/selection/partition_selection.cpp",
        "find": "long double t = d <= 0.5L ? 1.0L + std::log(1.0L / (2.0L * d)) / e",
        "replace": "long double t = d <= 0.5L ? 0.0L + std::log(1.0L / (2.0L * d)) / e",
        "what": "The Laplace threshold of group selection is one unit lower, so a group of one "
                "unit is kept with probability e^eps times delta, above the per-group delta "
                "(the plan's own self-check refuses it; auto strategy selection fails with it).",
        "killers": ["unit:Selection.*", "regress:" + _LATE + ",76_privacy_units", "noise"],
    },
    {
        "id": "selection-keep-probability-doubled",
        "file": "src/core/selection/partition_selection.cpp",
        "find": "return k.complement ? !(u < k.value) : (u < k.value);",
        "replace": "return k.complement ? !(u < k.value) : (u < 2 * k.value);",
        "what": "A group is kept with twice the probability the selection's privacy proof allows "
                "wherever that probability is at most one half (small groups, one unit included).",
        "killers": ["unit:Selection.*", "regress:" + _LATE + ",76_privacy_units", "noise", "dp_tester"],
    },
    # ---------------------------------------------------------------- glue: privacy units -----
    {
        "id": "per-unit-share-not-divided",
        "file": "src/pg/aggregates/aggregates.c",
        "find": "\tif (L <= 1)\n\t\treturn x;\n\ts = x / L;",
        "replace": "\tif (L >= 1)\n\t\treturn x;\n\ts = x / L;",
        "what": "dpagg_share returns the whole (eps, delta) instead of (eps/L, delta/L), so each of "
                "a unit's L groups is calibrated at the full epsilon and the unit is protected "
                "only at L times the charged epsilon.",
        "killers": ["regress:" + _LATE + ",76_privacy_units", "noise", "dp_tester"],
    },
    {
        "id": "sum-clamp-widened",
        "file": "src/pg/aggregates/aggregates.c",
        "find": "return dpagg_quantize(value_as_double(fcinfo, 1, vt), p->lower, p->upper, p->inv_quantum);",
        "replace": "return dpagg_quantize(value_as_double(fcinfo, 1, vt), p->lower, 2 * p->upper, p->inv_quantum);",
        "what": "Floating-point and numeric dp_sum rows, and each unit's sum per group, are "
                "clamped to [lower, 2 upper] while the noise is calibrated for [lower, upper], so "
                "one row (one unit) moves the sum by up to twice the sensitivity.",
        "killers": ["regress:30_nulls_nonfinite," + _LATE + ",76_privacy_units", "dp_tester"],
    },
    {
        "id": "max-rows-per-group-ignored",
        "file": "src/pg/aggregates/aggregates.c",
        "find": "st->count += p->max_rows > 0 ? Min(n, (int64) p->max_rows) : 1;",
        "replace": "st->count += p->max_rows > 0 ? n : 1;",
        "what": "A per-unit count with max_rows_per_group = C counts all of a unit's rows in the "
                "group, not at most C, while its noise is calibrated for sensitivity C.",
        "killers": ["regress:" + _LATE + ",76_privacy_units", "dump"],
    },
    {
        "id": "unit-groups-not-limited",
        "file": "src/pg/query/bound.c",
        "find": "Int64GetDatum(lc.L), false,",
        "replace": "Int64GetDatum(lc.L * 1000), false,",
        "what": "The rewrite keeps up to 1000 L of a unit's groups instead of L, while each group "
                "is calibrated at eps/L: a unit in many groups is protected at far more than the "
                "charged epsilon.",
        "killers": ["regress:" + _LATE + ",76_privacy_units", "dp_tester"],
    },
    {
        "id": "group-selection-skipped",
        "file": "src/pg/aggregates/selection.c",
        "find": "\treturn keep != 0;",
        "replace": "\treturn n_units > 0;",
        "what": "Every group with a unit is released whatever the selection drew, so a group's "
                "existence (e.g. a department of one person) shows exactly when that person is "
                "in the data.",
        "killers": ["regress:" + _LATE + ",76_privacy_units", "restricted", "noise", "dp_tester"],
    },
    {
        "id": "selection-ignores-max-groups",
        "file": "src/pg/aggregates/selection.c",
        "find": "dpagg_selection_plan_for(strategy, epsilon, delta, L, &p->plan);",
        "replace": "dpagg_selection_plan_for(strategy, epsilon, delta, 1, &p->plan);",
        "what": "A query's group selection is planned for L = 1 although a unit may appear in L "
                "groups, so each group spends the whole selection epsilon (dp_explain and "
                "dp_group_selection still show the right plan: only the keep rates give it away).",
        "killers": ["noise", "dp_tester"],
    },
    {
        "id": "joint-gaussian-sensitivity-not-scaled",
        "file": "src/pg/aggregates/aggregates.c",
        "find": "sens = nextafter(sqrt((double) p->max_groups) * sens *",
        "replace": "sens = nextafter(1.0 * sens *",
        "what": "The Gaussian over a unit's L groups is calibrated for l2 sensitivity 'bound' "
                "instead of sqrt(L) bound at the full epsilon, so per-unit releases with L > 1 "
                "get sqrt(L) too little noise.",
        "killers": ["regress:" + _LATE + ",76_privacy_units", "noise"],
    },
    # ---------------------------------------------------------------- glue: releases ----------
    {
        "id": "avg-count-without-noise",
        "file": "src/pg/aggregates/aggregates.c",
        "find": "*c = noisy_count(st, &(*p_out)->plan[1]);",
        "replace": "*c = (double) st->count;",
        "what": "dp_avg divides by the exact count (charged, and calibrated, as a noisy one), so "
                "its count half releases the true number of rows.",
        "killers": ["noise", "dp_tester"],
    },
    {
        "id": "count-without-noise",
        "file": "src/pg/aggregates/aggregates.c",
        "find": "double\t\tc = rint(dpagg_draw(plan, (__int128) st->count));",
        "replace": "double\t\tc = rint((double) st->count);",
        "what": "dp_count (and dp_avg's count) returns the exact count after charging, a release "
                "with no privacy at all.",
        "killers": ["regress:" + _LATE, "noise", "dp_tester"],
    },
    {
        "id": "sum-report-halfwidth-halved",
        "file": "src/pg/aggregates/aggregates.c",
        "find": "double\t\tw = p->halfwidth[0];",
        "replace": "double\t\tw = p->halfwidth[0] / 2;",
        "what": "dp_sum_report's interval is half as wide as the noise quantile, so it claims a "
                "confidence it does not have (accuracy promise, not privacy).",
        "killers": ["regress:" + _LATE + ",55_report", "noise"],
    },
    {
        "id": "vector-clip-widened",
        "file": "src/pg/aggregates/vector.c",
        "find": "factor = (bound / scale) / sqrt(sumsq);",
        "replace": "factor = (2 * bound / scale) / sqrt(sumsq);",
        "what": "dp_sum_vector scales a long row to twice the l2 bound (then only each coordinate "
                "is clamped to the bound), so one row moves the vector of sums by more than the "
                "sensitivity the noise is calibrated for.",
        "killers": ["regress:" + _LATE + ",76_privacy_units,80_vector", "dp_tester"],
    },
    # ---------------------------------------------------------------- glue: charging ----------
    {
        "id": "rescan-not-charged",
        "file": "src/pg/ledger/charge.c",
        "find": "if (mark->charged && mark->loop == instr->nloops)",
        "replace": "if (mark->charged)",
        "what": "An aggregation re-executed in one query (correlated subquery, lateral join, "
                "function per row) is charged once, although every execution releases fresh "
                "noise: repeated releases average the noise away for free.",
        "killers": ["regress:" + _LATE + ",70_budgets"],
    },
    {
        "id": "charge-not-added-to-account",
        "file": "src/pg/ledger/charge.c",
        "find": "dpagg_account_add(&a->acct, &cost);",
        "replace": "(void) cost;",
        "what": "A release is appended to the ledger but not added to the role's running totals, "
                "so the budget check never sees what was spent until a restart replays it.",
        "killers": ["regress:" + _LATE + ",70_budgets", "ledger"],
    },
    {
        "id": "min-release-epsilon-ignored",
        "file": "src/pg/ledger/charge.c",
        "find": "verdict = dpagg_admit(&with, &cost, epsilon, dpagg_min_release_epsilon);",
        "replace": "verdict = dpagg_admit(&with, &cost, epsilon, 0);",
        "what": "dpagg.min_release_epsilon is not enforced, so a budget allows unboundedly many "
                "tiny releases (the floor is what bounds the number of releases).",
        "killers": ["regress:" + _LATE + ",70_budgets"],
    },
    {
        "id": "statement-precheck-skipped",
        "file": "src/pg/ledger/charge.c",
        "find": "\tledger_charge(aggregate, grouping_sets_of(as), epsilon, delta, parts, nparts, true, NULL,",
        "replace": "\tif (false)\n\t\tledger_charge(aggregate, grouping_sets_of(as), epsilon, delta, parts, nparts, true, NULL,",
        "what": "The releases of a statement are no longer admitted together when it starts, so "
                "a statement whose releases fit one by one but not together pays the first and "
                "is refused later, releasing nothing for the budget spent.",
        "killers": ["regress:" + _LATE + ",70_budgets"],
    },
    {
        "id": "charge-after-scan",
        "file": "src/pg/aggregates/site.c",
        "find": "\tfor (i = 0; i < w->nsites; i++)\n\t\tdpagg_site_charge(w->sites[i]);",
        "replace": "\tfor (i = 0; i < 0; i++)\n\t\tdpagg_site_charge(w->sites[i]);",
        "what": "A release is charged only when its final function runs, after the scan: a query "
                "cancelled mid-scan or an aggregation with no group reads the private rows (timing, "
                "counters) without paying.",
        "killers": ["security"],
    },
    {
        "id": "release-context-unchecked",
        "file": "src/pg/ledger/charge.c",
        "find": "if (MyBackendType != B_BACKEND && !parallel_worker_of_client())",
        "replace": "if (false && MyBackendType != B_BACKEND && !parallel_worker_of_client())",
        "what": "Autovacuum, background workers and walsenders may release, so an analyst's "
                "trojan statistics expression is evaluated per sampled row on nobody's budget.",
        "killers": ["ledger"],
    },
    {
        "id": "restricted-operation-release-allowed",
        "file": "src/pg/ledger/charge.c",
        "find": "if ((sec & SECURITY_RESTRICTED_OPERATION) != 0 &&",
        "replace": "if (false && (sec & SECURITY_RESTRICTED_OPERATION) != 0 &&",
        "what": "A maintenance command (ANALYZE, CREATE INDEX, REFRESH MATERIALIZED VIEW) run by a "
                "DBA may release through an analyst's expression, charging the DBA's budget for "
                "the analyst's releases.",
        "killers": ["regress:" + _LATE + ",70_budgets"],
    },
    # ---------------------------------------------------------------- glue: the ledger --------
    {
        "id": "ledger-crc-not-compared",
        "file": "src/pg/ledger/ledger_store.c",
        "find": "return ledger_record_crc((const LedgerRecord *) p) == h.crc;",
        "replace": "return ledger_record_crc((const LedgerRecord *) p) == h.crc || true;",
        "what": "A damaged ledger record is accepted as long as its framing looks right, so the "
                "budgets are computed from corrupted totals instead of refusing releases.",
        "killers": ["ledger"],
    },
    # ------------------------------------------ standbys, workers, parallel plans, partitions ----
    {
        "id": "standby-release-allowed",
        "file": "src/pg/ledger/ledger_store.c",
        "find": "\tif (!RecoveryInProgress())\n\t\treturn;\n\tprimary[0] = '\\0';",
        "replace": "\tif (true)\n\t\treturn;\n\tprimary[0] = '\\0';",
        "what": "A standby no longer refuses releases and budget changes: its charges cannot reach "
                "the primary's ledger (here it fails only when it tries to write WAL, after the "
                "budget check).",
        "killers": ["wal"],
    },
    {
        "id": "citus-grants-per-role-unbounded",
        "file": "src/pg/citus/grant_record.c",
        "find": "e = held < grants_per_role ? hash_search(issued_grants, nonce, HASH_ENTER_NULL, &found) : NULL;",
        "replace": "e = hash_search(issued_grants, nonce, HASH_ENTER_NULL, &found);",
        "what": "The coordinator issues Citus grants to a role without bound: one role can fill "
                "every worker's record of used grants with cheap queries and refuse everyone "
                "else's worker-side releases until its grants expire (a denial of service).",
        "killers": ["citus"],
    },
    {
        "id": "citus-worker-release-allowed",
        "file": "src/pg/ledger/charge.c",
        "find": "\tif (dpagg_citus_worker())\n\t\tereport(ERROR,",
        "replace": "\tif (false && dpagg_citus_worker())\n\t\tereport(ERROR,",
        "what": "A Citus worker releases without a grant, charging its own ledger, which the "
                "coordinator's budget never sees.",
        "killers": ["citus"],
    },
    {
        "id": "citus-grant-replay-allowed",
        "file": "src/pg/citus/grant_record.c",
        "find": "if (s != NULL && (s->used[index / 8] & (1 << (index % 8))) != 0)",
        "replace": "if (false && s != NULL && (s->used[index / 8] & (1 << (index % 8))) != 0)",
        "what": "A coordinator's grant can be replayed on the shard it was used on, so one charge "
                "buys any number of releases of the same rows.",
        "killers": ["citus"],
    },
    {
        "id": "citus-variance-merge-count-check-dropped",
        "file": "src/pg/aggregates/variance.c",
        "find": "if (q > max_q || q < -max_q || s > max_s || s < -max_s)",
        "replace": "if (false && (q > max_q || q < -max_q || s > max_s || s < -max_s))",
        "what": "The variances' merge (Citus) adds partial sums that their count of values clamped "
                "to the merge's bounds could not make (made with wider bounds, say), and releases "
                "them with noise calibrated for the merge's bounds: each row can move the release "
                "by more than its sensitivity.",
        "killers": ["regress:" + _LATE + ",83_variance", "citus"],
    },
    {
        "id": "citus-variance-worker-squares-off",
        "file": "src/pg/aggregates/variance.c",
        "find": "PG_RETURN_INT64(squares ? qq : qy);",
        "replace": "PG_RETURN_INT64(squares ? qq / 2 : qy);",
        "what": "The workers' quanta of the centred squares are not the ones dp_var_pop's state "
                "adds, so a variance on Citus releases another statistic than on one node with "
                "the same charge (and halved squares understate each row's contribution).",
        "killers": ["regress:" + _LATE + ",83_variance", "citus"],
    },
    {
        "id": "citus-quantile-merge-bin-check-dropped",
        "file": "src/pg/aggregates/percentile.c",
        "find": "if (bin < 0 || bin >= nbins)",
        "replace": "if (false && (bin < 0 || bin >= nbins))",
        "what": "The quantiles' merge (Citus) counts values in bins outside its grid (a partial "
                "made with another grid, or forged), which the release then reads past the end "
                "of its bins or clamps into an end bin: the merged state is not one a node could "
                "make from any rows.",
        "killers": ["regress:" + _LATE + ",82_percentile", "citus"],
    },
    {
        "id": "citus-quantile-worker-bin-off",
        "file": "src/pg/aggregates/percentile.c",
        "find": "PG_RETURN_INT32(dpagg_quantile_bin(value_as_double(fcinfo, 0, vt), lower, upper));",
        "replace": "PG_RETURN_INT32(dpagg_quantile_bin(value_as_double(fcinfo, 0, vt), lower, upper) / 2);",
        "what": "The workers' bin of a value is not the one dp_percentile's state counts it in, so "
                "a quantile on Citus releases another statistic than on one node with the same "
                "charge.",
        "killers": ["regress:" + _LATE + ",82_percentile", "citus"],
    },
    {
        "id": "citus-auto-merge-sums-check-dropped",
        "file": "src/pg/aggregates/auto_bounds.c",
        "find": "if ((why = bin_sums_invalid(PG_GETARG_INT32(1), n, s, q, squares)) != NULL)",
        "replace": "if (false && (why = bin_sums_invalid(PG_GETARG_INT32(1), n, s, q, squares)) != NULL)",
        "what": "The merge without bounds (Citus) adds partial sums that no count of values of "
                "their bin could make, or bins outside the 191 (a partial made otherwise, or "
                "forged), and releases them with noise calibrated for the bounds the histogram "
                "chose: each row can move the release by more than its sensitivity.",
        "killers": ["regress:" + _LATE + ",84_auto_bounds", "citus"],
    },
    {
        "id": "citus-auto-worker-quanta-off",
        "file": "src/pg/aggregates/auto_bounds.c",
        "find": "PG_RETURN_INT64(llrint(ldexp(x, -dpagg_bounds_quantum_exp(j))));",
        "replace": "PG_RETURN_INT64(llrint(ldexp(x, -dpagg_bounds_quantum_exp(j))) / 2);",
        "what": "The workers' quanta of a value are not the ones dp_sum's state without bounds "
                "adds for it, so dp_sum, dp_avg and the variances without bounds on Citus "
                "release another statistic than on one node with the same charge.",
        "killers": ["regress:" + _LATE + ",84_auto_bounds", "citus"],
    },
    {
        "id": "citus-auto-worker-squares-off",
        "file": "src/pg/aggregates/auto_bounds.c",
        "find": "PG_RETURN_INT64(dpagg_bounds_square_quanta(x, j));",
        "replace": "PG_RETURN_INT64(dpagg_bounds_square_quanta(x, j) / 2);",
        "what": "The workers' square quanta of a value are not the ones the variance's state "
                "without bounds adds, so a variance without bounds on Citus releases another "
                "statistic than on one node with the same charge (and halved squares understate "
                "each row's contribution).",
        "killers": ["regress:" + _LATE + ",86_auto_variance", "citus"],
    },
    {
        "id": "parameters-not-frozen",
        "file": "src/pg/aggregates/site.c",
        "find": "if (!fc.found && !fc.trim)",
        "replace": "if (!fc.trim)",
        "what": "Non-constant privacy parameters are not frozen into the plan before a parallel "
                "plan starts, so workers can evaluate a setting-dependent parameter differently "
                "and clamp with bounds other than those charged and calibrated.",
        "killers": ["security"],
    },
    {
        "id": "partition-not-private",
        "file": "src/pg/labels/protect.c",
        "find": "else if (get_rel_relispartition(relid))",
        "replace": "else if (false && get_rel_relispartition(relid))",
        "what": "A partition of a private (or public) table is no longer private (or public) "
                "with it, so reading the partition by name gives per-row, not per-unit, answers.",
        "killers": ["regress:" + _LATE + ",77_restricted", "dump"],
    },
    # ---------------------------------------------------------------- restricted analysts -----
    {
        "id": "restricted-leakproof-any-type",
        "file": "src/pg/query/restrict_functions.c",
        "find": "\t\tif (trusted_types[i] == t)\n\t\t\treturn true;\n\treturn false;",
        "replace": "\t\tif (trusted_types[i] == t)\n\t\t\treturn true;\n\treturn true;",
        "what": "Every LEAKPROOF built-in is trusted on private rows whatever its types, "
                "including circle_lt and lseg_lt, which raise an error on one row's huge value.",
        "killers": ["regress:" + _LATE + ",78_restricted_functions", "restricted"],
    },
    {
        "id": "restricted-any-function",
        "file": "src/pg/query/restrict.c",
        "find": "if (ac->plan && rewrite_made(((FuncExpr *) node)->location))",
        "replace": "if (true || rewrite_made(((FuncExpr *) node)->location))",
        "what": "The allow-list accepts any function call on private rows (pg_sleep, set_config, "
                "the analyst's PL/pgSQL that raises a notice), each a side channel on one row.",
        "killers": ["regress:" + _LATE + ",77_restricted", "restricted"],
    },
    {
        "id": "restricted-policy-unchecked",
        "file": "src/pg/query/restrict.c",
        "find": "check_expr((Node *) rte->securityQuals, \"a row-security policy\");",
        "replace": "check_expr(NULL, \"a row-security policy\");",
        "what": "Row-security policies of the relations beside private data are not checked "
                "when the query is, though a nested loop runs them once per private row (only "
                "the finished-plan check still stands in the way).",
        "killers": ["regress:45_superuser_unlimited,50_statistics,77_restricted", "restricted"],
    },
    {
        "id": "restricted-plan-check-skipped",
        "file": "src/pg/query/restrict_plan.c",
        "find": "\tmemset(&pc, 0, sizeof(pc));\n\tpc.stmt = stmt;",
        "replace": "\tmemset(&pc, 0, sizeof(pc));\n\tif (stmt != NULL)\n\t\treturn;\n\tpc.stmt = stmt;",
        "what": "The finished plan of a restricted statement is not checked, so expressions the "
                "planner moves next to private rows (a private view's salary / 1000, a pulled-up "
                "policy) run on them unchecked.",
        "killers": ["regress:" + _LATE + ",77_restricted", "restricted"],
    },
    {
        "id": "restricted-deny-by-default-off",
        "file": "src/pg/query/restrict_objects.c",
        "find": "\trefuse_relation(relid, \"Restricted roles read",
        "replace": "\tif (false)\n\t\trefuse_relation(relid, \"Restricted roles read",
        "what": "A restricted role may read any relation nobody declared private or public (a "
                "copy of a private table restored without its label, say) raw.",
        "killers": ["regress:" + _LATE + ",77_restricted", "restricted"],
    },
    {
        "id": "restricted-fastpath-allowed",
        "file": "src/pg/query/restrict_objects.c",
        "find": "\tif (dpagg_statement_depth() == 0 && MyBEEntry != NULL &&",
        "replace": "\tif (false && dpagg_statement_depth() == 0 && MyBEEntry != NULL &&",
        "what": "A restricted role may call any function by OID through the fast-path protocol, "
                "e.g. pg_stat_get_live_tuples of a private table, with no statement to check.",
        "killers": ["restricted"],
    },
    {
        "id": "restricted-own-operators-allowed",
        "file": "src/pg/query/restrict.c",
        "find": "\tif (opno >= FirstGenbkiObjectId)\n\t\trefuse(psprintf(\"restricted roles cannot use an operator of their own",
        "replace": "\tif (false && opno >= FirstGenbkiObjectId)\n\t\trefuse(psprintf(\"restricted roles cannot use an operator of their own",
        "what": "An operator of the analyst's over an allowed function is accepted, and the "
                "planner runs its commutator's estimator (the analyst's code) on the private "
                "column's statistics.",
        "killers": ["restricted"],
    },
    {
        "id": "sql-version-unchecked",
        "file": "src/pg/base/version.c",
        "find": "\tif (v == NULL || strcmp(v, DPAGG_VERSION) != 0)\n\t\tereport(ERROR,",
        "replace": "\tif (false && (v == NULL || strcmp(v, DPAGG_VERSION) != 0))\n\t\tereport(ERROR,",
        "what": "A library releases over SQL objects of another version (aggregates declared with "
                "other signatures, defaults or C functions) instead of refusing until ALTER "
                "EXTENSION dpagg UPDATE.",
        "killers": ["upgrade"],
    },
    {
        "id": "upgrade-script-volatility",
        "file": "versions/dpagg--0.1.0--1.0.0.sql",
        "find": "AS 'MODULE_PATHNAME', 'dpagg_version_sql' LANGUAGE C STABLE PARALLEL SAFE;",
        "replace": "AS 'MODULE_PATHNAME', 'dpagg_version_sql' LANGUAGE C VOLATILE PARALLEL SAFE;",
        "what": "An upgrade script that does not reach the surface of a fresh install (here one "
                "function's volatility), so updated databases differ from new ones.",
        "killers": ["upgrade"],
    },
]


# --------------------------------------------------------------------------------------------------
# Self-check: python3 tests/mutation/faults.py

_PLAIN_KILLERS = {"unit", "restricted", "ledger", "security", "dump", "wal", "citus", "noise",
                  "dp_tester", "upgrade"}


def _check():
    import collections
    import os
    import re
    import sys

    root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    problems = []
    ids = collections.Counter(f.get("id") for f in FAULTS)
    for fid, n in ids.items():
        if n > 1:
            problems.append("id %r is used %d times" % (fid, n))
    per_killer = collections.Counter()
    per_kind = collections.Counter()
    for f in FAULTS:
        fid = f.get("id", "?")
        missing = {"id", "file", "find", "replace", "what", "killers"} - set(f)
        if missing:
            problems.append("%s: missing %s" % (fid, ", ".join(sorted(missing))))
            continue
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", fid):
            problems.append("%s: the id is not kebab-case" % fid)
        path = os.path.join(root, f["file"])
        if not os.path.isfile(path):
            problems.append("%s: no file %s" % (fid, f["file"]))
            continue
        with open(path) as fh:
            text = fh.read()
        n = text.count(f["find"])
        if n != 1:
            problems.append("%s: `find` occurs %d times in %s" % (fid, n, f["file"]))
        if f["find"] == f["replace"]:
            problems.append("%s: `replace` equals `find`" % fid)
        if not f["killers"]:
            problems.append("%s: no killers" % fid)
        for k in f["killers"]:
            per_killer[k] += 1
            if k.startswith("regress:"):
                per_kind["regress"] += 1
                for name in k[len("regress:"):].split(","):
                    if not os.path.isfile(os.path.join(root, "sql", name + ".sql")):
                        problems.append("%s: no sql/%s.sql" % (fid, name))
            elif k.startswith("unit:"):
                per_kind["unit"] += 1  # the unit tests the GoogleTest filter after "unit:" names
            elif k in _PLAIN_KILLERS:
                per_kind[k] += 1
            else:
                problems.append("%s: unknown killer %r" % (fid, k))
    # docs/mutation.md lists every fault with its file, and no fault that is not here
    with open(os.path.join(root, "docs", "mutation.md")) as fh:
        doc = fh.read()
    for f in FAULTS:
        if "| `%s` | `%s` |" % (f.get("id"), f.get("file")) not in doc:
            problems.append("%s: docs/mutation.md has no row \"| `%s` | `%s` |\"" % (f.get("id"), f.get("id"), f.get("file")))
    for fid in re.findall(r"^\| `([a-z0-9-]+)` \| `src/", doc, re.M):
        if fid not in ids:
            problems.append("docs/mutation.md lists %s, which is not in the catalog" % fid)
    print("%d faults in %d files" % (len(FAULTS), len({f["file"] for f in FAULTS})))
    print("faults per killer kind (a fault counts once for each killer it lists):")
    for k, n in sorted(per_kind.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %-12s %d" % (k, n))
    print("faults per killer:")
    for k, n in sorted(per_killer.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %-80s %d" % (k, n))
    first = collections.Counter(f["killers"][0].split(":")[0] for f in FAULTS if f.get("killers"))
    print("first (cheapest) killer: " + ", ".join("%s %d" % kv for kv in sorted(first.items())))
    if problems:
        print("PROBLEMS:")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print("ok: every file exists, every `find` occurs exactly once, every killer is known")


if __name__ == "__main__":
    _check()
