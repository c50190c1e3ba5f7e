#include "registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "errors.h"
#include "release.h"
#include "mechanisms/auto/auto.h"
#include "mechanisms/discrete_laplace/discrete_laplace.h"
#include "mechanisms/gaussian_rules/gaussian_rules.h"
#include "mechanisms/generalized_gaussian/generalized_gaussian.h"
#include "mechanisms/l2/l2.h"
#include "mechanisms/laplace/laplace.h"
#include "mechanisms/multi_gaussian/multi_gaussian.h"
#include "mechanisms/osgt/osgt.h"
#include "mechanisms/quasi_gaussian/quasi_gaussian.h"
#include "mechanisms/staircase/staircase.h"
#include "mechanisms/tulap/tulap.h"
#include "mechanisms/truncated_laplace/truncated_laplace.h"

namespace dpagg {

const std::vector<const Mechanism*>& all_mechanisms() {
  static const std::vector<const Mechanism*> list = {
      // One line per mechanism.
      &analytic_gaussian_mechanism(),
      &classic_gaussian_mechanism(),
      &laplace_mechanism(),
      &staircase_mechanism(),
      &tulap_mechanism(),
      &truncated_laplace_mechanism(),
      &discrete_laplace_mechanism(),
      &dwork2006_gaussian_mechanism(),
      &zhao1_gaussian_mechanism(),
      &zhao2_gaussian_mechanism(),
      &zcdp_gaussian_mechanism(),
      &pdp_gaussian_mechanism(),
      &zhao3_pdp_gaussian_mechanism(),
      &zhao4_pdp_gaussian_mechanism(),
      &osgt_mechanism(),
      &generalized_gaussian_mechanism(),
      &quasi_gaussian_mechanism(),
      &multi_gaussian_mechanism(),
      &l2_mechanism(),
      &auto_mechanism(),
  };
  return list;
}

const Mechanism* find_mechanism(int32_t id) {
  // Indexed by id, filled once; two mechanisms with one id would be a programming error.
  static const std::vector<const Mechanism*> by_id = [] {
    std::vector<const Mechanism*> v;
    for (const Mechanism* m : all_mechanisms()) {
      if (m->id() <= DPAGG_MECH_NONE)
        throw Error(DPAGG_INTERNAL, std::string("mechanism ") + m->name() + " has no identity");
      const size_t i = static_cast<size_t>(m->id());
      if (i >= v.size()) v.resize(i + 1, nullptr);
      if (v[i] != nullptr)
        throw Error(DPAGG_INTERNAL, std::string("mechanisms ") + v[i]->name() + " and " + m->name() +
                                        " share one identity");
      v[i] = m;
    }
    return v;
  }();
  if (id <= 0 || static_cast<size_t>(id) >= by_id.size()) return nullptr;
  return by_id[static_cast<size_t>(id)];
}

namespace {

// Whether m serves scalar releases: of every query, or (discrete_laplace) of integer-valued ones.
bool serves_scalar(const Mechanism& m) {
  PrivacyRequest integer{1, 0, 1};
  integer.integer_valued = true;
  return m.serves(PrivacyRequest{1, 0, 1}) || m.serves(integer);
}

}  // namespace

const std::vector<const Mechanism*>& listed_mechanisms() {
  static const std::vector<const Mechanism*> list = [] {
    std::vector<const Mechanism*> v;
    for (const Mechanism* m : all_mechanisms())
      if (serves_scalar(*m)) v.push_back(m);
    return v;
  }();
  return list;
}

namespace {

constexpr double kMaxEpsilon = 1e9;
constexpr double kMinEpsilon = 1e-10;
constexpr double kMaxNoiseRatio = 1e150;  // sensitivity / epsilon
constexpr double kMinDelta = 1e-290;
constexpr double kMinSensitivity = 1e-150;
constexpr double kMaxSensitivity = 1.01e150;  // 1e150 plus the release-grid allowance
constexpr int kMaxDimension = 10000;

std::string trim_lower(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  std::string out = s.substr(b, e - b);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The name a mechanism has in the family of `vector` releases, or nullptr if it serves none.
const char* family_name(const Mechanism& m, bool vector) {
  if (vector) return m.vector_name();
  return serves_scalar(m) ? m.name() : nullptr;
}

// "Did you mean laplace? " for a name at most two edits (Levenshtein) from one mechanism's,
// else "" (a walk-through typed laplase and multi_gausian).
std::string did_you_mean(const std::string& name, bool vector) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_d = 3;
  for (const Mechanism* m : all_mechanisms()) {
    const char* n = family_name(*m, vector);
    if (n == nullptr) continue;
    const size_t d = distance(name, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  return best.empty() ? "" : "Did you mean " + best + "? ";
}

std::string names_list(bool vector) {
  std::string out;
  for (const Mechanism* m : all_mechanisms()) {
    const char* n = family_name(*m, vector);
    if (n == nullptr) continue;
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

std::string canonical_spec(const std::string& name, const Options& options, const std::string& raw) {
  std::string out = name;
  if (!options.empty()) {
    out += "(";
    bool first = true;
    for (const auto& [k, v] : options) {
      if (!first) out += ",";
      out += k + "=" + v;
      first = false;
    }
    out += ")";
  }
  if (out.size() >= DPAGG_MECH_SPEC_LEN)
    invalid("mechanism spec " + quoted(raw) + " is too long",
            "A mechanism spec has at most " + std::to_string(DPAGG_MECH_SPEC_LEN - 1) +
                " characters.");
  return out;
}

// A request's objective, for a mechanism with an objective option whose spec names none: it
// becomes part of the spec (and so of the canonical spec recorded with the calibration).
void apply_objective(ParsedSpec& ps, const PrivacyRequest& req, const std::string& raw) {
  if (req.objective == Objective::kUnset || req.vector) return;
  const auto opts = ps.mechanism->option_names();
  if (std::find(opts.begin(), opts.end(), kObjectiveOption.key) == opts.end()) return;
  if (ps.options.count(kObjectiveOption.key)) return;
  ps.options[kObjectiveOption.key] = req.objective == Objective::kL1 ? "l1" : "l2";
  ps.canonical = canonical_spec(family_name(*ps.mechanism, req.vector), ps.options, raw);
}

// A zcdp budget's accounting, for a mechanism with an accounting option whose spec names none
// (auto): recorded in the canonical spec too, e.g. auto(accounting=zcdp,objective=l2).  Basic
// accounting is the option's default and is not written.
void apply_accounting(ParsedSpec& ps, const PrivacyRequest& req) {
  if (!req.zcdp_accounting) return;
  const auto opts = ps.mechanism->option_names();
  if (std::find(opts.begin(), opts.end(), kAccountingOption.key) == opts.end()) return;
  if (ps.options.count(kAccountingOption.key)) return;
  ps.options[kAccountingOption.key] = "zcdp";
  ps.canonical = canonical_spec(family_name(*ps.mechanism, req.vector), ps.options, ps.canonical);
}

}  // namespace

ParsedSpec parse_spec(const std::string& raw, bool vector) {
  std::string spec = trim_lower(raw);
  std::string name = spec, args;
  size_t open = spec.find('(');
  if (open != std::string::npos) {
    if (spec.back() != ')')
      invalid("malformed mechanism " + quoted(raw),
              "Write a mechanism as name or name(option=value, ...).");
    name = trim_lower(spec.substr(0, open));
    args = spec.substr(open + 1, spec.size() - open - 2);
  }
  ParsedSpec out{nullptr, {}, {}};
  for (const Mechanism* m : all_mechanisms()) {
    const char* n = family_name(*m, vector);
    if (n != nullptr && name == n) out.mechanism = m;
  }
  if (out.mechanism == nullptr)
    invalid("unknown mechanism " + quoted(raw),
            did_you_mean(name, vector) +
                (vector ? "Valid mechanisms for a vector release are: " + names_list(true) + "."
                        : "Valid mechanisms are: " + names_list(false) + " (see dp_mechanisms())."));
  const std::vector<std::string> allowed = out.mechanism->option_names();
  size_t pos = 0;
  while (!trim_lower(args).empty() && pos <= args.size()) {
    size_t comma = args.find(',', pos);
    std::string item = args.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = item.find('=');
    if (eq == std::string::npos)
      invalid("malformed option " + quoted(trim_lower(item)) + " in mechanism " + quoted(raw),
              "Options are written key=value.");
    std::string key = trim_lower(item.substr(0, eq));
    std::string value = trim_lower(item.substr(eq + 1));
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      invalid("mechanism " + name + " has no option " + quoted(key),
              allowed.empty() ? "This mechanism takes no options."
                              : "See dp_mechanisms() for its options.");
    if (value.empty() || out.options.count(key))
      invalid("option " + quoted(key) + " of mechanism " + name + " is empty or repeated",
              "Give each option once, as key=value.");
    out.options[key] = value;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  out.canonical = canonical_spec(name, out.options, raw);
  return out;
}

void validate_request(const Mechanism& m, const PrivacyRequest& req) {
  if (req.dimension < 1 || req.dimension > kMaxDimension)
    invalid("dimension must be between 1 and 10000", "Pass the length of the vectors.");
  if (!req.vector && req.dimension != 1)
    throw Error(DPAGG_INTERNAL, "a scalar release has dimension 1");
  if (req.vector && req.integer_valued)
    throw Error(DPAGG_INTERNAL, "a vector release is not integer-valued");
  if (!(std::isfinite(req.epsilon) && req.epsilon > 0))
    invalid("epsilon must be a finite number greater than 0",
            "Pass epsilon in [1e-10, 1e9], for example 1.0.");
  if (req.epsilon > kMaxEpsilon)
    invalid("epsilon must be at most 1e9",
            "Pass epsilon in (0, 1e9]; beyond that no noise scale is meaningful.");
  if (!(req.delta >= 0 && req.delta < 1))  // also rejects NaN
    invalid("delta must be in [0, 1)",
            "Pass delta in [0, 1): 0 for pure DP, or well below 1/n for n people, e.g. 1e-6 "
            "(epsilon comes first, then delta).");
  if (req.delta > 0 && req.delta < kMinDelta)
    invalid("delta must be 0 or at least 1e-290",
            "Pass delta = 0 (pure DP, laplace) or delta in [1e-290, 1).");
  if (req.delta == 0 && !m.accepts_zero_delta())
    invalid(std::string("mechanism ") + family_name(m, req.vector) + " needs delta > 0",
            std::string("Pass delta in (0, 1), or use the ") + (req.vector ? "l2" : "laplace") +
                " mechanism for delta = 0.");
  if (!(std::isfinite(req.sensitivity) && req.sensitivity > 0))
    invalid("sensitivity must be a finite number greater than 0",
            "Pass the largest absolute value one row can contribute, in (0, infinity).");
  if (req.sensitivity < kMinSensitivity || req.sensitivity > kMaxSensitivity)
    invalid("sensitivity must be between 1e-150 and 1e150",
            "Rescale the values (e.g. to other units) so that one row contributes at most 1e150.");
  // The noise scale is about sensitivity / epsilon (times a factor up to ~40 at the smallest
  // delta); its square, the expected squared error, must stay a finite double.
  if (req.epsilon < kMinEpsilon)
    invalid("epsilon must be at least 1e-10",
            "Pass epsilon in [1e-10, 1e9]; below that the noise is more than ten billion times the sensitivity.");
  if (req.sensitivity / req.epsilon > kMaxNoiseRatio)
    invalid("sensitivity / epsilon must be at most 1e150",
            "Rescale the values (e.g. to other units) or raise epsilon: the noise would not be representable.");
  if (req.integer_valued && !(req.sensitivity == std::floor(req.sensitivity) && req.sensitivity <= 1e9))
    invalid("an integer-valued query needs a whole-number sensitivity",
            "Pass a sensitivity in 1, 2, 3, ... (at most 1e9), or integer_valued => false.");
}

void check(const std::string& spec, const PrivacyRequest& req) {
  ParsedSpec ps = parse_spec(spec, req.vector);
  apply_objective(ps, req, spec);
  apply_accounting(ps, req);
  validate_request(*ps.mechanism, req);
  ps.mechanism->validate(req, ps.options);
}

dpagg_calibration calibrate(const std::string& spec, const PrivacyRequest& req) {
  ParsedSpec ps = parse_spec(spec, req.vector);
  apply_objective(ps, req, spec);
  apply_accounting(ps, req);
  validate_request(*ps.mechanism, req);
  ps.mechanism->validate(req, ps.options);
  dpagg_calibration cal;
  std::memset(&cal, 0, sizeof(cal));
  std::snprintf(cal.spec, sizeof(cal.spec), "%s", ps.canonical.c_str());
  std::snprintf(cal.requested, sizeof(cal.requested), "%s", ps.canonical.c_str());
  cal.mechanism = ps.mechanism->id();
  cal.epsilon = req.epsilon;
  cal.delta = req.delta;
  cal.sensitivity = req.sensitivity;
  cal.integer_valued = req.integer_valued ? 1 : 0;
  cal.dimension = req.dimension;
  cal.vector = req.vector ? 1 : 0;
  ps.mechanism->calibrate(req, ps.options, cal);
  if (!(std::isfinite(cal.scale) && cal.scale > 0 && cal.delta_bound >= 0 &&
        cal.delta_bound <= req.delta && std::isfinite(cal.l1) && std::isfinite(cal.l2)))
    throw Error(DPAGG_INTERNAL, std::string("calibration of ") + ps.mechanism->name() +
                                    " failed its certificate check");
  return cal;
}

PrivacyRequest for_release(PrivacyRequest req) {
  // Integer-valued answers are never moved by the release grid: no allowance for them.
  if (!req.integer_valued) req.sensitivity = release_sensitivity(req.sensitivity, req.dimension);
  return req;
}

dpagg_calibration calibrate_for_release(const std::string& spec, const PrivacyRequest& req) {
  return calibrate(spec, for_release(req));
}

void check_for_release(const std::string& spec, const PrivacyRequest& req) {
  check(spec, for_release(req));
}

double Mechanism::zcdp_rho(const dpagg_calibration&) const {
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace dpagg
