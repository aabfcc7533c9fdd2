// Runs a node body so that any failure names the node: an exception in any
// node stops the graph (oneTBB cancels it and wait_for_all rethrows) and the
// user sees "node 'parse': file: record N (byte B): what went wrong".
#pragma once

#include <exception>
#include <new>
#include <utility>

#include "invidx/error.hpp"
#include "invidx/metrics.hpp"

namespace invidx {

template <class Body>
decltype(auto) run_guarded(const NodeMetrics& metrics, Body&& body) {
    try {
        return std::forward<Body>(body)();
    } catch (const Error& error) {
        throw error.with_defaults(ErrorContext{.node = metrics.name, .file = {}, .record = {}, .byte_offset = {}});
    } catch (const std::bad_alloc&) {
        throw Error("out of memory", ErrorContext{.node = metrics.name, .file = {}, .record = {}, .byte_offset = {}});
    } catch (const std::exception& error) {
        throw Error(error.what(), ErrorContext{.node = metrics.name, .file = {}, .record = {}, .byte_offset = {}});
    }
}

}  // namespace invidx
