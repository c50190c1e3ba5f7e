// registry.h — the list of mechanisms and the parser of mechanism specs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mechanism.h"

namespace dpagg {

// Every mechanism, in the order dp_mechanisms() lists them.
const std::vector<const Mechanism*>& all_mechanisms();

// The registered mechanism whose id() is `id` (a dpagg_mechanism_id, e.g. a calibration's
// mechanism), or nullptr if there is none.
const Mechanism* find_mechanism(int32_t id);

struct ParsedSpec {
  const Mechanism* mechanism;
  Options options;
  std::string canonical;  // name, or name(k=v,...) with keys sorted
};

// Parses "name" or "name(key=value, ...)"; case-insensitive names, surrounding blanks ignored.
// Throws dpagg::Error(DPAGG_INVALID_PARAMETER) for unknown names or options.
ParsedSpec parse_spec(const std::string& spec);

// Validates the request (ranges of epsilon, delta, sensitivity) for the given mechanism.
void validate_request(const Mechanism& m, const PrivacyRequest& req);

// parse + validate, without calibrating (cheap).
void check(const std::string& spec, const PrivacyRequest& req);

// parse + validate + calibrate + certify (delta_bound <= delta is re-checked here).
dpagg_calibration calibrate(const std::string& spec, const PrivacyRequest& req);

}  // namespace dpagg
