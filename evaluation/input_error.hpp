// A qrels or run file that cannot be used: the message names the file and,
// for a bad line, its number ("run.txt: line 7: ..."), so the user can fix it.
#pragma once

#include <stdexcept>
#include <string>

namespace invidx::evaluation {

struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace invidx::evaluation
