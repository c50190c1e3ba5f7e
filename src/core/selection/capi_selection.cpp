// capi_selection.cpp — the C boundary of group selection (dpagg_selection.h).  Every entry point
// catches everything: nothing thrown in the core crosses into the (C) PostgreSQL glue.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <string>

#include "dpagg_selection.h"
#include "errors.h"
#include "guarded.h"
#include "partition_selection.h"
#include "random.h"

namespace {

using dpagg::selection::PartitionSelection;

using dpagg::guarded;
using dpagg::set_error;

void need(const void* p, const char* what) {
  if (p == nullptr) throw dpagg::Error(DPAGG_INTERNAL, std::string("group selection: ") + what + " is NULL");
}

}  // namespace

extern "C" {

int dpagg_selection_strategy_parse(const char* name, int32_t* strategy, dpagg_error* err) {
  return guarded(err, [&] {
    need(name, "the strategy name");
    need(strategy, "the output");
    *strategy = static_cast<int32_t>(dpagg::selection::parse_strategy(name));
  });
}

const char* dpagg_selection_strategy_name(int32_t strategy) {
  switch (strategy) {
    case DPAGG_SELECT_OPTIMAL:
    case DPAGG_SELECT_LAPLACE:
    case DPAGG_SELECT_GAUSSIAN:
      return dpagg::selection::strategy_name(static_cast<dpagg::selection::Strategy>(strategy));
    default:
      return nullptr;
  }
}

int dpagg_selection_prepare(int32_t strategy, double epsilon, double delta, int64_t max_groups,
                            dpagg_selection_plan* plan, dpagg_error* err) {
  return guarded(err, [&] {
    need(plan, "the plan");
    if (dpagg_selection_strategy_name(strategy) == nullptr)
      dpagg::invalid("unknown group selection strategy " + std::to_string(strategy),
                     "Use 'optimal' (the default), 'laplace' or 'gaussian'.");
    *plan = dpagg::selection::Builder()
                .strategy(static_cast<dpagg::selection::Strategy>(strategy))
                .epsilon(epsilon)
                .delta(delta)
                .max_groups(max_groups)
                .build_plan();
  });
}

int dpagg_selection_keep(const dpagg_selection_plan* plan, int64_t n_units, int* keep,
                         dpagg_error* err) {
  return guarded(err, [&] {
    need(plan, "the plan");
    need(keep, "the output");
    auto sel = PartitionSelection::from_plan(*plan);
    dpagg::SecureRandom rng;
    *keep = sel->keep(n_units, rng) ? 1 : 0;
  });
}

double dpagg_selection_probability(const dpagg_selection_plan* plan, int64_t n_units) {
  double out = std::numeric_limits<double>::quiet_NaN();
  dpagg_error ignored;
  guarded(&ignored, [&] {
    need(plan, "the plan");
    out = PartitionSelection::from_plan(*plan)->probability(n_units);
  });
  return out;
}

int dpagg_selection_min_units(const dpagg_selection_plan* plan, double probability,
                              int64_t* n_units, dpagg_error* err) {
  return guarded(err, [&] {
    need(plan, "the plan");
    need(n_units, "the output");
    *n_units = PartitionSelection::from_plan(*plan)->min_units(probability);
  });
}

int dpagg_selection_describe(const dpagg_selection_plan* plan, char* buf, size_t buflen,
                             dpagg_error* err) {
  return guarded(err, [&] {
    need(plan, "the plan");
    need(buf, "the buffer");
    if (buflen == 0) return;
    std::string s = PartitionSelection::from_plan(*plan)->describe_json();
    std::snprintf(buf, buflen, "%s", s.c_str());
  });
}

}  // extern "C"
