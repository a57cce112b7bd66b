#pragma once
// The cache of tuned GPU launch shapes (`nbody tune`), keyed by device and driver, engine,
// precision and N. `run` and `bench` take the shape from it when no --launch is given (the entry
// of the nearest N in log scale); without an entry the engine's built-in default applies.
// File: $NBODY_TUNE_CACHE, else $XDG_CACHE_HOME/nbody-lab/tune.json, else ~/.cache/nbody-lab/tune.json.
#include <cstddef>
#include <optional>
#include <string>

#include "engines/launch.hpp"

namespace nbody::tune_cache {

std::string path();
// The launch shape stored for this key at the nearest n (in log scale), if any. A damaged cache
// (not the JSON store() writes, or a launch text parse_launch refuses) is an InputError naming it.
std::optional<Launch> lookup(const std::string& device_key, const std::string& engine, const std::string& precision,
                             std::size_t n);
// Stores (replaces) the entry for exactly this key and n; written atomically.
void store(const std::string& device_key, const std::string& engine, const std::string& precision, std::size_t n,
           const std::string& launch, double seconds);

}  // namespace nbody::tune_cache
