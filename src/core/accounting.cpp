// accounting.cpp — composition of privacy losses (accounting.h says what and why).
//
// Every number here is also written in, or replayed from, the durable ledger: the expressions
// (their order of operations, long double sums, one rounding to double) are those the ledger's
// totals were computed with, and must stay so.
#include "accounting.h"

#include <cmath>

namespace dpagg::accounting {

double zcdp_epsilon(double rho, double delta) {
  if (rho <= 0) return 0;
  if (!(delta > 0)) return INFINITY;
  return rho + 2 * std::sqrt(rho * std::log(1 / delta));
}

dpagg_release_cost release_cost(int sets, double epsilon, double delta,
                                const dpagg_charge_part* parts, int nparts) {
  dpagg_release_cost c;
  c.epsilon = epsilon * sets;
  c.delta = delta * sets;
  c.rho = 0;
  c.delta_nz = 0;
  for (int i = 0; i < nparts; i++) {
    const double rho = parts[i].rho;
    // A part is charged its rho when its mechanism is rho-zCDP with rho <= epsilon^2 / 2,
    // otherwise epsilon^2 / 2 and its delta (approximate zCDP).  Both are valid guarantees of the
    // part; the choice depends only on public values.
    if (!std::isnan(rho) && rho <= parts[i].epsilon * parts[i].epsilon / 2) {
      c.rho += rho * sets;
    } else {
      c.rho += parts[i].epsilon * parts[i].epsilon / 2 * sets;
      c.delta_nz += parts[i].delta * sets;
    }
  }
  return c;
}

void add(dpagg_account& a, const dpagg_release_cost& c) {
  a.epsilon_all += c.epsilon;
  a.delta_all += c.delta;
  a.rho += c.rho;
  a.delta_nz += c.delta_nz;
  a.releases++;
}

dpagg_spent spent_with(const dpagg_account& a, const dpagg_release_cost* c) {
  dpagg_spent s;
  if (a.method == DPAGG_ACCOUNTING_ZCDP && a.has_budget) {
    const long double rho = a.rho + (c ? c->rho : 0);
    const long double dnz = a.delta_nz + (c ? c->delta_nz : 0);
    const double dconv = a.delta_total / 2;  // the half of delta kept for the conversion
    s.epsilon = rho > 0 ? zcdp_epsilon(static_cast<double>(rho), dconv) : 0;
    s.delta = static_cast<double>(dnz) + (rho > 0 ? dconv : 0);
    s.delta_approx = static_cast<double>(dnz);
  } else {
    s.epsilon = static_cast<double>(a.epsilon_all + (c ? c->epsilon : 0));
    s.delta = static_cast<double>(a.delta_all + (c ? c->delta : 0));
    s.delta_approx = s.delta;
  }
  return s;
}

bool within(double spent, double total) {
  return spent <= total * (1 + DPAGG_BUDGET_SLACK) || spent == 0;
}

bool fits(const dpagg_account& a, const dpagg_spent& s) {
  if (a.method == DPAGG_ACCOUNTING_ZCDP)
    return within(s.epsilon, a.epsilon_total) && within(s.delta_approx, a.delta_total / 2);
  return within(s.epsilon, a.epsilon_total) && within(s.delta, a.delta_total);
}

bool exceeds_cap(double epsilon, double cap) {
  return !std::isnan(cap) && epsilon > cap * (1 + DPAGG_BUDGET_SLACK);
}

dpagg_admission admit(const dpagg_account& a, const dpagg_release_cost& c, double epsilon,
                      double min_release_epsilon) {
  if (exceeds_cap(epsilon, a.cap)) return DPAGG_REFUSE_CAP;
  if (epsilon < min_release_epsilon) return DPAGG_REFUSE_FLOOR;
  if (!fits(a, spent_with(a, &c))) return DPAGG_REFUSE_EXHAUSTED;
  return DPAGG_ADMIT;
}

}  // namespace dpagg::accounting

// The C boundary: nothing thrown crosses it, and a failure answers in the refusing direction.
extern "C" {

double dpagg_zcdp_epsilon(double rho, double delta) {
  try {
    return dpagg::accounting::zcdp_epsilon(rho, delta);
  } catch (...) {
    return INFINITY;
  }
}

void dpagg_release_cost_of(int sets, double epsilon, double delta, const dpagg_charge_part* parts,
                           int nparts, dpagg_release_cost* out) {
  try {
    *out = dpagg::accounting::release_cost(sets, epsilon, delta, parts, nparts);
  } catch (...) {
    out->epsilon = out->delta = out->rho = out->delta_nz = INFINITY;
  }
}

void dpagg_account_add(dpagg_account* a, const dpagg_release_cost* c) {
  try {
    dpagg::accounting::add(*a, *c);
  } catch (...) {
    a->epsilon_all = a->delta_all = a->rho = a->delta_nz = INFINITY;
  }
}

dpagg_spent dpagg_spent_with(const dpagg_account* a, const dpagg_release_cost* c) {
  try {
    return dpagg::accounting::spent_with(*a, c);
  } catch (...) {
    return dpagg_spent{INFINITY, INFINITY, INFINITY};
  }
}

int dpagg_within(double spent, double total) {
  try {
    return dpagg::accounting::within(spent, total) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

int dpagg_fits(const dpagg_account* a, dpagg_spent s) {
  try {
    return dpagg::accounting::fits(*a, s) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

int dpagg_exceeds_cap(double epsilon, double cap) {
  try {
    return dpagg::accounting::exceeds_cap(epsilon, cap) ? 1 : 0;
  } catch (...) {
    return 1;
  }
}

dpagg_admission dpagg_admit(const dpagg_account* a, const dpagg_release_cost* c, double epsilon,
                            double min_release_epsilon) {
  try {
    return dpagg::accounting::admit(*a, *c, epsilon, min_release_epsilon);
  } catch (...) {
    return DPAGG_REFUSE_EXHAUSTED;
  }
}

}  // extern "C"
