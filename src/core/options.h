// options.h — the one reader of mechanism options.  A spec such as "multi_gaussian(k=12)" is split
// by the spec parser (registry.cpp) into key -> value text (keys and values trimmed and lowercased,
// each key one the mechanism lists in option_names(), given at most once, never empty).  A
// mechanism declares each option it reads once, as a typed constant with its range and its value
// when absent, and reads it with read_option(); a value outside the range, or not of the type, is
// refused with dpagg::invalid and uniform texts:
//     message  option <key> of <mechanism> must be <an integer from lo to hi | a number from lo to
//              hi | one of the choices>
//     hint     Write <mechanism>(<key>=<example>): <key> is <the same range>[; <note>].
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dpagg {

// Options of a mechanism spec: key -> value text.
using Options = std::map<std::string, std::string>;

// An integer in [lo, hi], written in decimal (strtol, base 10; nothing may follow the digits).
struct IntOption {
  const char* key;
  int lo, hi;
  int absent;           // the value when the option is not given
  const char* example;  // a valid value, for the hint
  const char* note;     // what else the hint says ("" for nothing)
};

// A finite number in [lo, hi], as strtod reads it (nothing may follow it).
struct NumberOption {
  const char* key;
  double lo, hi;
  double absent;
  const char* example;
  const char* note;
};

// One of a fixed list of words; read_option returns its index in `choices`.
struct ChoiceOption {
  const char* key;
  std::vector<const char*> choices;
  int absent;  // index of the value when the option is not given
  const char* example;
  const char* note;
};

int read_option(const Options& options, const char* mechanism, const IntOption& spec);
double read_option(const Options& options, const char* mechanism, const NumberOption& spec);
int read_option(const Options& options, const char* mechanism, const ChoiceOption& spec);

// The loss a mechanism minimises where it has a choice to make (auto, multi_gaussian's K):
// option objective = l2 (expected squared error, the default) or l1 (expected absolute error).
extern const ChoiceOption kObjectiveOption;
// read_option(options, mechanism, kObjectiveOption) == l1.
bool objective_is_l1(const Options& options, const char* mechanism);

// How the budget charged for the release composes (auto): accounting = basic (the default: the
// least expected loss) or zcdp (the least expected loss per unit of rho charged; auto.h).
extern const ChoiceOption kAccountingOption;
bool accounting_is_zcdp(const Options& options, const char* mechanism);

}  // namespace dpagg
