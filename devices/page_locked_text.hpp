// Text blocks page-locked for a GPU that parses (invidx/text_bytes.hpp):
// while the returned scope lives, new large text buffers are registered
// with CUDA (portable: every device copies from them) through `device`'s
// context. Null where invidx was built without CUDA.
#pragma once

#include <memory>

#include "invidx/text_bytes.hpp"

namespace invidx {

std::unique_ptr<page_lockable::LockingScope> page_lock_text_blocks(int device);

}  // namespace invidx
