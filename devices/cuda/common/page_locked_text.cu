// page_lock_text_blocks (devices/page_locked_text.hpp): cudaHostRegister of
// a text buffer when it is allocated, cudaHostUnregister before it is freed.
#include "devices/page_locked_text.hpp"

#include <cuda_runtime.h>

namespace invidx {
namespace {

// Makes `device` current for a call and gives the thread its own back: a
// buffer may be allocated or freed on a thread working for another GPU.
class OnDevice {
public:
    explicit OnDevice(int device) {
        if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
        ok_ = cudaSetDevice(device) == cudaSuccess;
    }
    ~OnDevice() {
        if (previous_ >= 0) cudaSetDevice(previous_);
    }
    bool ok() const { return ok_; }

private:
    int previous_ = -1;
    bool ok_ = false;
};

bool register_buffer(int device, void* pointer, std::size_t bytes) {
    // Through the context of the GPU that parses, as the build made it
    // (the allocating thread may never have used CUDA).
    const OnDevice on(device);
    if (!on.ok() || cudaHostRegister(pointer, bytes, cudaHostRegisterPortable) != cudaSuccess) {
        cudaGetLastError();  // a buffer left unlocked is only staged: not an error of the build
        return false;
    }
    return true;
}

void unregister_buffer(int device, void* pointer) {
    const OnDevice on(device);
    cudaHostUnregister(pointer);
    cudaGetLastError();
}

}  // namespace

std::unique_ptr<page_lockable::LockingScope> page_lock_text_blocks(int device) {
    return std::make_unique<page_lockable::LockingScope>(
        page_lockable::Locker{&register_buffer, &unregister_buffer, device});
}

}  // namespace invidx
