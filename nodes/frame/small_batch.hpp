// Which batches count as small: at most half of `batch_bytes` of text.
//
// One rule for both steps that act on it, so that neither undoes the other:
// the framer emits a batch it is filling at a block's end only when it is not
// small (a small one's text is copied and it waits for the next block;
// file_framer.hpp), and the docid step packs small batches together,
// copying their text (docid_assigner.hpp). A batch the framer let go
// because it was large is never copied again by the docid step.
#pragma once

#include <cstdint>

namespace invidx {

inline bool is_small_batch(uint64_t text_bytes, uint64_t batch_bytes) { return text_bytes <= batch_bytes / 2; }

}  // namespace invidx
