// options.cpp — see options.h.
#include "options.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "errors.h"

namespace dpagg {

namespace {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

// The option's value text, or nullptr when it is not given.
const std::string* find(const Options& options, const char* key) {
  auto it = options.find(key);
  return it == options.end() ? nullptr : &it->second;
}

[[noreturn]] void refuse(const char* mechanism, const char* key, const std::string& range,
                         const char* example, const char* note) {
  std::string hint = std::string("Write ") + mechanism + "(" + key + "=" + example + "): " + key +
                     " is " + range;
  if (note != nullptr && *note != '\0') hint += std::string("; ") + note;
  invalid(std::string("option ") + key + " of " + mechanism + " must be " + range, hint + ".");
}

}  // namespace

int read_option(const Options& options, const char* mechanism, const IntOption& spec) {
  const std::string* text = find(options, spec.key);
  if (text == nullptr) return spec.absent;
  char* end = nullptr;
  const long v = std::strtol(text->c_str(), &end, 10);
  if (end == text->c_str() || *end != '\0' || v < spec.lo || v > spec.hi)
    refuse(mechanism, spec.key,
           "an integer from " + std::to_string(spec.lo) + " to " + std::to_string(spec.hi),
           spec.example, spec.note);
  return static_cast<int>(v);
}

double read_option(const Options& options, const char* mechanism, const NumberOption& spec) {
  const std::string* text = find(options, spec.key);
  if (text == nullptr) return spec.absent;
  char* end = nullptr;
  const double v = std::strtod(text->c_str(), &end);
  if (end == text->c_str() || *end != '\0' || !(v >= spec.lo && v <= spec.hi))  // also NaN
    refuse(mechanism, spec.key, "a number from " + number_text(spec.lo) + " to " + number_text(spec.hi),
           spec.example, spec.note);
  return v;
}

int read_option(const Options& options, const char* mechanism, const ChoiceOption& spec) {
  const std::string* text = find(options, spec.key);
  if (text == nullptr) return spec.absent;
  for (size_t i = 0; i < spec.choices.size(); ++i)
    if (*text == spec.choices[i]) return static_cast<int>(i);
  std::string range;
  for (size_t i = 0; i < spec.choices.size(); ++i) {
    if (i > 0) range += (i + 1 == spec.choices.size()) ? " or " : ", ";
    range += spec.choices[i];
  }
  refuse(mechanism, spec.key, range, spec.example, spec.note);
}

const ChoiceOption kObjectiveOption{
    "objective", {"l1", "l2"}, 1, "l1",
    "l1 is the expected absolute error, l2 (the default) the expected squared error"};

bool objective_is_l1(const Options& options, const char* mechanism) {
  return read_option(options, mechanism, kObjectiveOption) == 0;
}

const ChoiceOption kAccountingOption{
    "accounting", {"basic", "zcdp"}, 0, "zcdp",
    "zcdp weighs each mechanism's expected loss by the rho zCDP accounting charges for it; basic "
    "(the default) takes the least expected loss"};

bool accounting_is_zcdp(const Options& options, const char* mechanism) {
  return read_option(options, mechanism, kAccountingOption) == 1;
}

}  // namespace dpagg
