// Composition of privacy losses (src/core/accounting.{h,cpp}): the zCDP -> (epsilon, delta)
// conversion against a direct numeric minimisation over Renyi orders, the sums against exact
// (binary128) arithmetic, the fit test at its exact boundaries, monotonicity, the order of the
// refusals, and pinned values (the ledger's totals are replayed with these very functions, so a
// change of one bit would change what existing ledgers say was spent).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "accounting.h"

namespace acc = dpagg::accounting;

namespace {

constexpr double kSlack = DPAGG_BUDGET_SLACK;
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

dpagg_account budget(int method, double epsilon, double delta, double cap = kNaN) {
  dpagg_account a{};
  a.has_budget = 1;
  a.method = method;
  a.epsilon_total = epsilon;
  a.delta_total = delta;
  a.cap = cap;
  return a;
}

// A release of one part at (epsilon, delta) with the given rho (NaN: not zCDP).
dpagg_release_cost release(double epsilon, double delta, double rho = kNaN, int sets = 1) {
  dpagg_charge_part p{epsilon, delta, rho};
  return acc::release_cost(sets, epsilon, delta, &p, 1);
}

// Independent evaluation of the zCDP conversion: rho-zCDP means D_alpha <= rho alpha for every
// alpha > 1, and an RDP bound tau at order alpha gives (tau + ln(1/delta) / (alpha - 1), delta)-DP
// (Mironov 2017, "Renyi differential privacy", Prop. 3).  So the best epsilon is
//   min over alpha > 1 of  rho alpha + ln(1/delta) / (alpha - 1),
// found here by golden-section search in long double over t = ln(alpha - 1) (the function is
// convex in alpha - 1, hence unimodal in t), without the closed form.
long double epsilon_by_minimisation(double rho, double delta) {
  const long double L = -std::log(static_cast<long double>(delta));
  auto f = [&](long double t) {
    const long double u = std::exp(t);
    return static_cast<long double>(rho) * (1 + u) + L / u;
  };
  long double lo = -60, hi = 60;
  const long double g = (std::sqrt(5.0L) - 1) / 2;
  long double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  long double f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < 400; ++i) {
    if (f1 < f2) {
      hi = x2; x2 = x1; f2 = f1; x1 = hi - g * (hi - lo); f1 = f(x1);
    } else {
      lo = x1; x1 = x2; f1 = f2; x2 = lo + g * (hi - lo); f2 = f(x2);
    }
  }
  return std::min(f1, f2);
}

}  // namespace

// ---- the zCDP conversion ----------------------------------------------------------------------

TEST(Accounting, ZcdpEpsilonMatchesMinimisationOverRenyiOrders) {
  for (double rho : {1e-12, 1e-8, 1e-4, 1e-3, 0.01, 0.1, 0.5, 1.0, 5.0, 50.0, 1e4})
    for (double delta : {1e-300, 1e-30, 1e-12, 1e-6, 5e-7, 1e-3, 0.1, 0.25, 0.5}) {
      const double closed = acc::zcdp_epsilon(rho, delta);
      const long double direct = epsilon_by_minimisation(rho, delta);
      EXPECT_NEAR(closed, static_cast<double>(direct), 1e-13 * closed)
          << "rho " << rho << " delta " << delta;
    }
}

TEST(Accounting, ZcdpEpsilonEdgeCases) {
  EXPECT_EQ(acc::zcdp_epsilon(0, 1e-6), 0);
  EXPECT_EQ(acc::zcdp_epsilon(-0.0, 1e-6), 0);
  EXPECT_EQ(acc::zcdp_epsilon(-1, 1e-6), 0);
  EXPECT_EQ(acc::zcdp_epsilon(0, 0), 0);  // nothing spent: no conversion needed
  // Without a positive delta no finite epsilon follows: infinite, which no budget fits.
  EXPECT_EQ(acc::zcdp_epsilon(0.1, 0), kInf);
  EXPECT_EQ(acc::zcdp_epsilon(0.1, -1e-9), kInf);
  EXPECT_EQ(acc::zcdp_epsilon(0.1, kNaN), kInf);
  EXPECT_EQ(acc::zcdp_epsilon(0.1, 1), 0.1);  // ln(1/1) = 0
  EXPECT_EQ(dpagg_zcdp_epsilon(0.1, 0), kInf);
}

TEST(Accounting, ZcdpEpsilonIsMonotone) {
  // Increasing in rho, decreasing in delta, on a fine logarithmic grid and at neighbouring doubles.
  for (double delta : {1e-12, 5e-7, 0.25}) {
    double prev = 0;
    for (double rho = 1e-12; rho < 1e3; rho *= 1.01) {
      const double e = acc::zcdp_epsilon(rho, delta);
      EXPECT_GE(e, prev) << rho;
      EXPECT_GE(acc::zcdp_epsilon(std::nextafter(rho, kInf), delta), e) << rho;
      prev = e;
    }
  }
  for (double rho : {1e-6, 0.1, 10.0}) {
    double prev = kInf;
    for (double delta = 1e-300; delta < 0.5; delta *= 1.5) {
      const double e = acc::zcdp_epsilon(rho, delta);
      EXPECT_LE(e, prev) << delta;
      prev = e;
    }
  }
}

// ---- the cost of a release --------------------------------------------------------------------

TEST(Accounting, ReleaseCostPerPartRule) {
  // A part charged its rho when rho <= epsilon^2 / 2 (boundary included) ...
  const double e = 0.5, half = e * e / 2;
  dpagg_release_cost c = release(e, 1e-6, half);
  EXPECT_EQ(c.epsilon, 0.5);
  EXPECT_EQ(c.delta, 1e-6);
  EXPECT_EQ(c.rho, half);
  EXPECT_EQ(c.delta_nz, 0);
  c = release(e, 1e-6, half / 4);
  EXPECT_EQ(c.rho, half / 4);
  EXPECT_EQ(c.delta_nz, 0);
  // ... otherwise epsilon^2 / 2 and its delta (approximate zCDP): above the bound, or not zCDP.
  c = release(e, 1e-6, std::nextafter(half, kInf));
  EXPECT_EQ(c.rho, half);
  EXPECT_EQ(c.delta_nz, 1e-6);
  c = release(e, 1e-6, kNaN);
  EXPECT_EQ(c.rho, half);
  EXPECT_EQ(c.delta_nz, 1e-6);
  // Never less than the better of the two guarantees: the rule takes the smaller rho.
  for (double rho : {0.01, 0.1, 0.125, 0.2, 1.0})
    EXPECT_LE(release(e, 1e-6, rho).rho, half);
}

TEST(Accounting, ReleaseCostGroupingSetsAndParts) {
  dpagg_charge_part parts[2] = {{0.3, 0.0, 0.01}, {0.2, 1e-7, kNaN}};
  dpagg_release_cost c = acc::release_cost(3, 0.5, 1e-7, parts, 2);
  EXPECT_EQ(c.epsilon, 0.5 * 3);
  EXPECT_EQ(c.delta, 1e-7 * 3);
  EXPECT_EQ(c.rho, 0.01 * 3 + 0.2 * 0.2 / 2 * 3);
  EXPECT_EQ(c.delta_nz, 1e-7 * 3);
  c = acc::release_cost(2, 0.5, 1e-7, parts, 0);  // no parts: nothing for zcdp
  EXPECT_EQ(c.epsilon, 1.0);
  EXPECT_EQ(c.rho, 0);
  EXPECT_EQ(c.delta_nz, 0);
  dpagg_release_cost d;
  dpagg_release_cost_of(3, 0.5, 1e-7, parts, 2, &d);
  EXPECT_EQ(d.rho, acc::release_cost(3, 0.5, 1e-7, parts, 2).rho);
}

// ---- basic composition ------------------------------------------------------------------------

TEST(Accounting, BasicSumsAgreeWithExactArithmetic) {
  // The long double sums, rounded once, against binary128 sums (exact for these magnitudes to
  // far below a double's ulp): within 2e-15 relative after 20 000 releases, hundreds of times
  // below the slack.
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-13, 0.7);
  dpagg_account a = budget(DPAGG_ACCOUNTING_BASIC, 1e9, 0.9);
  __float128 eps = 0, delta = 0;
  for (int i = 0; i < 20000; ++i) {
    const double e = std::pow(10.0, u(gen)), d = std::pow(10.0, u(gen) - 8);
    acc::add(a, release(e, d));
    eps += e;
    delta += d;
    if (i % 997 == 0 || i == 19999) {
      const dpagg_spent s = acc::spent_with(a, nullptr);
      EXPECT_NEAR(s.epsilon, static_cast<double>(eps), 2e-15 * static_cast<double>(eps));
      EXPECT_NEAR(s.delta, static_cast<double>(delta), 2e-15 * static_cast<double>(delta));
      EXPECT_EQ(s.delta_approx, s.delta);
    }
  }
  EXPECT_EQ(a.releases, 20000);
}

TEST(Accounting, SpentWithAddsTheReleaseWithoutChangingTheAccount) {
  dpagg_account a = budget(DPAGG_ACCOUNTING_BASIC, 1, 1e-6);
  acc::add(a, release(0.25, 1e-7));
  const dpagg_release_cost c = release(0.5, 2e-7, kNaN, 2);
  const dpagg_spent with = acc::spent_with(a, &c);
  EXPECT_EQ(with.epsilon, 1.25);
  EXPECT_EQ(with.delta, static_cast<double>(static_cast<long double>(1e-7) + 2 * 2e-7));
  EXPECT_EQ(acc::spent_with(a, nullptr).epsilon, 0.25);
  dpagg_account b = a;
  acc::add(b, c);
  EXPECT_EQ(acc::spent_with(b, nullptr).epsilon, with.epsilon);
  EXPECT_EQ(acc::spent_with(b, nullptr).delta, with.delta);
}

// ---- zCDP spending ----------------------------------------------------------------------------

TEST(Accounting, ZcdpSpendingConvertsAtHalfTheDelta) {
  dpagg_account a = budget(DPAGG_ACCOUNTING_ZCDP, 2, 1e-6);
  dpagg_spent s = acc::spent_with(a, nullptr);
  EXPECT_EQ(s.epsilon, 0);
  EXPECT_EQ(s.delta, 0);  // nothing spent: the conversion's half is not used yet
  acc::add(a, release(0.5, 1e-9, 0.01));       // a Gaussian part: rho 0.01
  acc::add(a, release(0.2, 1e-8, kNaN));       // an (epsilon, delta) part: 0.02 and 1e-8
  s = acc::spent_with(a, nullptr);
  EXPECT_EQ(s.epsilon, acc::zcdp_epsilon(static_cast<double>(static_cast<long double>(0.01) + 0.2 * 0.2 / 2), 5e-7));
  EXPECT_EQ(s.delta_approx, 1e-8);
  EXPECT_EQ(s.delta, 1e-8 + 5e-7);
  // Without a budget the account shows basic sums whatever its method.
  a.has_budget = 0;
  s = acc::spent_with(a, nullptr);
  EXPECT_EQ(s.epsilon, 0.7);
  EXPECT_EQ(s.delta, static_cast<double>(static_cast<long double>(1e-9) + 1e-8));
}

TEST(Accounting, ZcdpComposesBetterThanBasicForGaussians) {
  // 1000 Gaussian releases at epsilon 0.1 (rho 0.1^2 / 2 each): basic spends 100, zcdp the
  // conversion of rho = 5 at delta / 2, about 22.
  dpagg_account z = budget(DPAGG_ACCOUNTING_ZCDP, 1e3, 1e-6), b = budget(DPAGG_ACCOUNTING_BASIC, 1e3, 1e-6);
  for (int i = 0; i < 1000; ++i) {
    acc::add(z, release(0.1, 1e-9, 0.005));
    acc::add(b, release(0.1, 1e-9, 0.005));
  }
  EXPECT_NEAR(acc::spent_with(b, nullptr).epsilon, 100, 1e-10);
  const double ez = acc::spent_with(z, nullptr).epsilon;
  EXPECT_NEAR(ez, 5 + 2 * std::sqrt(5 * std::log(2e6)), 1e-10);
  EXPECT_LT(ez, 25);
}

// ---- the fit test and its tolerance ------------------------------------------------------------

TEST(Accounting, WithinAtExactBoundaries) {
  for (double total : {1.0, 0.3, 1e-6, 1e-300, 1e300, 4.9e-324}) {
    const double edge = total * (1 + kSlack);
    EXPECT_TRUE(acc::within(total, total)) << total;
    EXPECT_TRUE(acc::within(edge, total)) << total;
    EXPECT_FALSE(acc::within(std::nextafter(edge, kInf), total)) << total;
  }
  // The slack is relative 1e-12, no more.
  EXPECT_TRUE(acc::within(1 + 0.99e-12, 1));
  EXPECT_FALSE(acc::within(1 + 1.01e-12, 1));
  // Nothing spent fits even a zero budget; anything spent does not.
  EXPECT_TRUE(acc::within(0, 0));
  EXPECT_TRUE(acc::within(-0.0, 0));
  EXPECT_FALSE(acc::within(4.9e-324, 0));
  // Non-finite spends never fit: rounding accidents refuse.
  EXPECT_FALSE(acc::within(kNaN, 1));
  EXPECT_FALSE(acc::within(kInf, 1e308));
  EXPECT_FALSE(acc::within(1, kNaN));
  EXPECT_EQ(dpagg_within(kNaN, 1), 0);
  EXPECT_EQ(dpagg_within(1, 1), 1);
}

TEST(Accounting, DecimalReleasesFitTheirDecimalBudget) {
  // The double nearest 0.1 is above 0.1; three of them sum (in long double, rounded) to
  // 0.30000000000000004 > 0.3: the slack is what lets them fit a budget of 0.3.
  dpagg_account a = budget(DPAGG_ACCOUNTING_BASIC, 0.3, 0);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(acc::admit(a, release(0.1, 0), 0.1, 0), DPAGG_ADMIT) << i;
    acc::add(a, release(0.1, 0));
  }
  EXPECT_GT(acc::spent_with(a, nullptr).epsilon, 0.3);
  EXPECT_EQ(acc::admit(a, release(1e-9, 0), 1e-9, 0), DPAGG_REFUSE_EXHAUSTED);
  // Ten releases of 0.1 fit 1.0; the eleventh does not.
  dpagg_account b = budget(DPAGG_ACCOUNTING_BASIC, 1.0, 1e-6);
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(acc::admit(b, release(0.1, 1e-7), 0.1, 0), DPAGG_ADMIT) << i;
    acc::add(b, release(0.1, 1e-7));
  }
  EXPECT_EQ(acc::admit(b, release(0.1, 0), 0.1, 0), DPAGG_REFUSE_EXHAUSTED);
  // A zero-cost release fits an exhausted budget only while nothing more is spent.
  EXPECT_EQ(acc::admit(b, release(0, 0), 0, 0), DPAGG_ADMIT);
  // Delta is a limit of its own.
  EXPECT_EQ(acc::admit(b, release(0, 1e-7), 0, 0), DPAGG_REFUSE_EXHAUSTED);
}

TEST(Accounting, ZcdpFitsAtItsBoundaries) {
  // Epsilon: the rho at which rho + 2 sqrt(rho L) = 1, L = ln(1 / (delta / 2)), is
  // (sqrt(L + 1) - sqrt(L))^2.
  const double total_delta = 1e-6;
  const long double L = std::log(2 / static_cast<long double>(total_delta));
  const long double rstar = std::pow(std::sqrt(L + 1) - std::sqrt(L), 2);
  for (double f : {1 - 1e-9, 1 + 1e-9}) {
    dpagg_account a = budget(DPAGG_ACCOUNTING_ZCDP, 1, total_delta);
    a.rho = rstar * f;
    EXPECT_EQ(acc::fits(a, acc::spent_with(a, nullptr)), f < 1) << f;
  }
  // The approximate parts' deltas: up to delta / 2, with the slack.
  dpagg_account a = budget(DPAGG_ACCOUNTING_ZCDP, 1, total_delta);
  a.delta_nz = total_delta / 2;
  EXPECT_TRUE(acc::fits(a, acc::spent_with(a, nullptr)));
  a.delta_nz = std::nextafter(total_delta / 2 * (1 + kSlack), kInf);
  EXPECT_FALSE(acc::fits(a, acc::spent_with(a, nullptr)));
  // A zcdp budget with delta 0 would convert to infinity: nothing with rho > 0 fits.
  dpagg_account z = budget(DPAGG_ACCOUNTING_ZCDP, 1e9, 0);
  EXPECT_EQ(acc::admit(z, release(1e-6, 0, 1e-13), 1e-6, 0), DPAGG_REFUSE_EXHAUSTED);
}

TEST(Accounting, AdmissionOrderCapThenFloorThenBudget) {
  dpagg_account a = budget(DPAGG_ACCOUNTING_BASIC, 1, 0, /*cap=*/0.5);
  acc::add(a, release(1, 0));  // exhausted
  EXPECT_EQ(acc::admit(a, release(0.6, 0), 0.6, 0), DPAGG_REFUSE_CAP);
  EXPECT_EQ(acc::admit(a, release(0.01, 0), 0.01, 0.1), DPAGG_REFUSE_FLOOR);
  EXPECT_EQ(acc::admit(a, release(0.2, 0), 0.2, 0.1), DPAGG_REFUSE_EXHAUSTED);
  // The cap is per grouping set (the epsilon asked), with the same slack, at its boundary.
  dpagg_account b = budget(DPAGG_ACCOUNTING_BASIC, 100, 0, 0.5);
  EXPECT_EQ(acc::admit(b, release(0.5, 0, kNaN, 3), 0.5, 0), DPAGG_ADMIT);
  EXPECT_FALSE(acc::exceeds_cap(0.5 * (1 + kSlack), 0.5));
  EXPECT_TRUE(acc::exceeds_cap(std::nextafter(0.5 * (1 + kSlack), kInf), 0.5));
  EXPECT_FALSE(acc::exceeds_cap(1e300, kNaN));  // no cap
  // The floor admits exactly the floor.
  EXPECT_EQ(acc::admit(b, release(0.1, 0), 0.1, 0.1), DPAGG_ADMIT);
  EXPECT_EQ(acc::admit(b, release(0.1, 0), std::nextafter(0.1, 0.0), 0.1), DPAGG_REFUSE_FLOOR);
  // The C interface gives the same verdicts.
  const dpagg_release_cost c = release(0.6, 0);
  EXPECT_EQ(dpagg_admit(&a, &c, 0.6, 0), DPAGG_REFUSE_CAP);
  EXPECT_EQ(dpagg_exceeds_cap(0.6, 0.5), 1);
}

// ---- monotonicity and the exact-arithmetic check of the fit ----------------------------------

TEST(Accounting, SpendingIsMonotoneAndRefusalsStay) {
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(0, 1);
  for (int method : {DPAGG_ACCOUNTING_BASIC, DPAGG_ACCOUNTING_ZCDP}) {
    dpagg_account a = budget(method, 1, 1e-5);
    dpagg_spent prev = acc::spent_with(a, nullptr);
    const dpagg_release_cost probe = release(0.05, 1e-8, 0.001);
    bool refused = false;
    for (int i = 0; i < 4000; ++i) {
      const double e = 0.02 * u(gen);
      acc::add(a, release(e, 1e-8 * u(gen), u(gen) < 0.5 ? kNaN : e * e / 2 * u(gen)));
      const dpagg_spent s = acc::spent_with(a, nullptr);
      EXPECT_GE(s.epsilon, prev.epsilon);
      EXPECT_GE(s.delta, prev.delta);
      EXPECT_GE(s.delta_approx, prev.delta_approx);
      prev = s;
      // Once a given release is refused, spending more never makes it fit again.
      const bool now = acc::admit(a, probe, 0.05, 0) != DPAGG_ADMIT;
      EXPECT_TRUE(now || !refused) << i;
      refused = now;
    }
    EXPECT_TRUE(refused);
  }
}

TEST(Accounting, AdmittedSpendsExceedTheBudgetByAtMostTheSlack) {
  // Against exact arithmetic (binary128 sums of the recorded doubles): whatever the rounding of
  // the sums, a release is admitted only when the exact spend is within total (1 + slack), up
  // to the one rounding of the sum to a double; and an exact spend within the total is never
  // refused.
  std::mt19937_64 gen(3);
  std::uniform_int_distribution<int> k(1, 40);
  std::uniform_real_distribution<double> u(0, 1);
  int admitted = 0, refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const double total = trial % 3 == 0 ? 0.1 * k(gen) : std::pow(10.0, 2 * u(gen) - 1);
    dpagg_account a = budget(DPAGG_ACCOUNTING_BASIC, total, 0);
    __float128 spent = 0;
    for (int i = 0; i < 200; ++i) {
      const double e = trial % 2 == 0 ? 0.01 * k(gen) : total * u(gen) / 10;
      const __float128 exact = spent + e;
      const bool ok = acc::admit(a, release(e, 0), e, 0) == DPAGG_ADMIT;
      const __float128 limit = static_cast<__float128>(total) * (1 + static_cast<__float128>(kSlack));
      if (ok) {
        ++admitted;
        EXPECT_LE(static_cast<double>(exact / limit), 1 + 1e-15);
        acc::add(a, release(e, 0));
        spent = exact;
      } else {
        ++refused;
        EXPECT_GT(static_cast<double>(exact / total), 1.0);
      }
    }
  }
  EXPECT_GT(admitted, 1000);
  EXPECT_GT(refused, 1000);
}

// ---- pinned values ---------------------------------------------------------------------------

TEST(Accounting, PinnedValuesOfTheLedgersArithmetic) {
  // Computed by the accounting code as it stood in src/pg/budget.c before it moved to the core;
  // every ledger's totals are replayed with it, so these must not change by one bit.
  EXPECT_EQ(acc::zcdp_epsilon(0.125, 5e-7), 0x1.68c0e0797cb42p+1);
  EXPECT_EQ(acc::zcdp_epsilon(1e-4, 1e-10), 0x1.89813d5f77b75p-4);
  EXPECT_EQ(acc::zcdp_epsilon(3.7, 0.25), 0x1.0758c668acbcep+3);
  const double eps[] = {0.1, 0.1, 0.1, 0.05, 0.3, 0.01, 0.2};
  const int sets[] = {1, 1, 1, 2, 1, 3, 1};
  dpagg_account b = budget(DPAGG_ACCOUNTING_BASIC, 1.0, 1e-6);
  dpagg_account z = budget(DPAGG_ACCOUNTING_ZCDP, 1.0, 1e-6);
  for (int i = 0; i < 7; ++i) {
    dpagg_charge_part p = {eps[i], 1e-7, kNaN};
    acc::add(b, acc::release_cost(sets[i], eps[i], 1e-7, &p, 1));
    dpagg_charge_part q[2] = {{eps[i] * 0.6, 0, eps[i] * eps[i] * 0.36 / 2 * 0.5}, {eps[i] * 0.4, 1e-8, kNaN}};
    acc::add(z, acc::release_cost(sets[i], eps[i], 1e-8, q, 2));
  }
  dpagg_spent s = acc::spent_with(b, nullptr);
  EXPECT_EQ(s.epsilon, 0x1.dc28f5c28f5c3p-1);
  EXPECT_EQ(s.delta, 0x1.0c6f7a0b5ed8dp-20);
  EXPECT_TRUE(acc::fits(b, s));
  s = acc::spent_with(z, nullptr);
  EXPECT_EQ(s.epsilon, 0x1.4e1db87c7242p+0);
  EXPECT_EQ(s.delta, 0x1.421f5f40d8376p-21);
  EXPECT_EQ(s.delta_approx, 0x1.ad7f29abcaf49p-24);
  EXPECT_EQ(z.rho, 0xe.634117f8444a5e4p-9L);
  EXPECT_FALSE(acc::fits(z, s));
  // The C interface is the same arithmetic.
  const dpagg_spent c = dpagg_spent_with(&z, nullptr);
  EXPECT_EQ(c.epsilon, s.epsilon);
  EXPECT_EQ(dpagg_fits(&z, c), 0);
}
