// The decompress node's "gpus": which GPUs inflate gzip members, and the
// ConfigError, naming the key or the entry, for anything it cannot be.
#include "nodes/decompress/inflate_gpus.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "invidx/error.hpp"

namespace invidx {
namespace {

using nlohmann::json;

const std::string kAt = "/nodes/1/gpus";

std::function<GpuInventory()> pretend_gpus(int count) {
    return [count] {
        GpuInventory inventory;
        inventory.built_with_cuda = true;
        for (int ordinal = 0; ordinal < count; ++ordinal)
            inventory.devices.push_back(GpuDevice{ordinal, "pretend", 9, 0, 0, 1});
        if (count == 0) inventory.note = "CUDA finds no device on this machine";
        return inventory;
    };
}

std::function<GpuInventory()> without_cuda() {
    return [] {
        GpuInventory inventory;
        inventory.note = "invidx was built without CUDA";
        return inventory;
    };
}

// The ConfigError's pointer and message, or "" where there is none.
std::pair<std::string, std::string> error_for(const json& value, const std::function<GpuInventory()>& inventory,
                                              bool split_gzip = true) {
    try {
        choose_inflate_gpus(value, kAt, inventory, {0}, split_gzip);
    } catch (const ConfigError& error) {
        return {error.json_pointer(), error.what()};
    }
    return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("inflate gpus: no key takes none (a pipeline written before GPU inflate builds as it did), and says how to ask") {
    const InflateGpuChoice absent = choose_inflate_gpus(json(nullptr), kAt, pretend_gpus(2), {0, 1}, true);
    CHECK(absent.setting == "none");
    CHECK(absent.ordinals.empty());
    CHECK(contains(absent.reason, "absent"));
    CHECK(contains(absent.reason, "\"auto\""));
}

TEST_CASE("inflate gpus: \"auto\" takes the parse node's GPUs where CUDA is and split_gzip is on") {
    const auto two = pretend_gpus(2);
    for (const json& value : {json("auto")}) {
        CAPTURE(value.dump());
        const InflateGpuChoice both = choose_inflate_gpus(value, kAt, two, {1, 0}, true);
        CHECK(both.setting == "auto");
        CHECK(both.ordinals == std::vector<int>{1, 0});
        CHECK(contains(both.reason, "gpu:1, gpu:0"));
        CHECK(choose_inflate_gpus(value, kAt, two, {}, true).ordinals.empty());
        CHECK(contains(choose_inflate_gpus(value, kAt, two, {}, true).reason, "parses on none"));
        const InflateGpuChoice unsplit = choose_inflate_gpus(value, kAt, two, {0}, false);
        CHECK(unsplit.ordinals.empty());
        CHECK(contains(unsplit.reason, "split_gzip is off"));
        // A GPU the parse node has that cannot inflate is left out.
        CHECK(choose_inflate_gpus(value, kAt, two, {0, 5}, true).ordinals == std::vector<int>{0});
        // Without CUDA: none, and why.
        const InflateGpuChoice no_cuda = choose_inflate_gpus(value, kAt, without_cuda(), {0}, true);
        CHECK(no_cuda.ordinals.empty());
        CHECK(contains(no_cuda.reason, "built without CUDA"));
    }
}

TEST_CASE("inflate gpus: \"auto\" takes none where this build or machine has no GPU") {
    if (!list_gpus().built_with_cuda || list_gpus().devices.empty())
        CHECK(choose_inflate_gpus("auto", kAt, list_gpus, {0}, true).ordinals.empty());
    CHECK(choose_inflate_gpus("auto", kAt, pretend_gpus(0), {0}, true).ordinals.empty());
}

TEST_CASE("inflate gpus: \"none\", an empty list, and lists of ordinals") {
    const auto two = pretend_gpus(2);
    for (const json& none : {json("none"), json::array()}) {
        const InflateGpuChoice choice = choose_inflate_gpus(none, kAt, two, {0, 1}, true);
        CHECK(choice.setting == "none");
        CHECK(choice.ordinals.empty());
        // "none" is fine without split_gzip or CUDA too.
        CHECK(choose_inflate_gpus(none, kAt, without_cuda(), {0}, false).ordinals.empty());
    }
    const InflateGpuChoice listed = choose_inflate_gpus(json::parse(R"([1, "gpu:0"])"), kAt, two, {}, true);
    CHECK(listed.setting == "list");
    CHECK(listed.ordinals == std::vector<int>{1, 0});
}

TEST_CASE("inflate gpus: a bad value is a ConfigError naming the key or the entry") {
    const auto two = pretend_gpus(2);
    const auto check = [&](const char* value, const std::string& pointer, const std::string& words,
                           const std::function<GpuInventory()>& inventory, bool split_gzip = true) {
        CAPTURE(value);
        const auto [at, message] = error_for(json::parse(value), inventory, split_gzip);
        CHECK(at == pointer);
        CHECK(contains(message, pointer));
        CHECK(contains(message, words));
    };
    check(R"("all")", kAt, "expected \"auto\", \"none\" or a list of GPU ordinals", two);
    check("0", kAt, "expected \"auto\", \"none\" or a list", two);
    check("true", kAt, "expected \"auto\", \"none\" or a list", two);
    check(R"({"device": 0})", kAt, "expected \"auto\", \"none\" or a list", two);
    check("[-1]", kAt + "/0", "expected a GPU ordinal such as 0 or \"gpu:0\", got -1", two);
    check("[0.5]", kAt + "/0", "expected a GPU ordinal", two);
    check(R"([0, "gpu:x"])", kAt + "/1", "expected a GPU ordinal", two);
    check(R"(["cpu"])", kAt + "/0", "expected a GPU ordinal", two);
    check("[[0]]", kAt + "/0", "expected a GPU ordinal", two);
    check("[0, 0]", kAt + "/1", "\"gpu:0\" is listed twice", two);
    check(R"([1, "gpu:1"])", kAt + "/1", "listed twice", two);
    check("[2]", kAt + "/0", "\"gpu:2\" is not available: no such GPU", two);
    check("[0]", kAt + "/0", "\"gpu:0\" is not available: no usable GPU: invidx was built without CUDA", without_cuda());
    check("[0]", kAt, "\"split_gzip\" is false", two, false);
}

TEST_CASE("inflate gpus: naming a GPU where none is usable says so") {
    if (list_gpus().devices.empty()) {
        const auto [at, message] = error_for(json::parse("[0]"), list_gpus);
        CHECK(at == kAt + "/0");
        CHECK(contains(message, "\"gpu:0\" is not available: no usable GPU"));
    } else {
        CHECK(choose_inflate_gpus(json::parse("[0]"), kAt, list_gpus, {}, true).ordinals == std::vector<int>{0});
    }
}

}  // namespace invidx
