// A run file a rank wrote (or moved) into rank 0's temporary directory, as
// the rank tells rank 0 about it in its JSON report, so that rank 0 can
// adopt the run into the joined index (IndexWriter::adopt_run) without
// reading it: both cluster modes send their runs this way.
#pragma once

#include <nlohmann/json.hpp>

#include "store/index_writer.hpp"

namespace invidx {

// with_slots: also the postings of every slot (hundreds of thousands of
// numbers in a large run), which the receiver needs only to write the
// dictionary itself (its pointer checks); without them it can adopt the run
// and a dictionary written elsewhere.
nlohmann::json written_run_to_json(const WrittenRun& written, bool with_slots);
// Throws nlohmann::json's errors for a field missing or of the wrong type;
// slots absent: none.
WrittenRun written_run_from_json(const nlohmann::json& json);

}  // namespace invidx
