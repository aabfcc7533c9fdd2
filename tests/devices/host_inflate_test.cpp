// inflate_members_on_host: the GPU inflate kernel's decoder run on the host
// (devices/inflate/deflate_member_decoder.hpp), against zlib's and
// libdeflate's members of every level and strategy, and damaged members
// with the status each must get (the kernel is held to these results in
// gpu_inflate_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "devices/gpu_inflate.hpp"
#include "devices/inflate/crc32_combine.hpp"
#include "devices/inflate/lockstep_decoding.hpp"
#include "devices/inflate/warp_jobs.hpp"
#include "devices/inflate/host_lanes.hpp"
#include "support/inflate_batches.hpp"

namespace {

using namespace invidx;
using namespace invidx::testing;
using inflate::HostLanes;

// Every member ok with its text.
void check_all_ok(const InflateBatch& batch, const HostInflated& inflated) {
    REQUIRE(inflated.outcomes.size() == batch.members.size());
    for (size_t i = 0; i < batch.members.size(); ++i) {
        INFO("member " << i << " of " << batch.texts[i].size() << " bytes");
        CHECK(inflate_status_name(inflated.outcomes[i].status) == std::string("ok"));
        CHECK(inflated.outcomes[i].offset == batch.members[i].in_size);
        CHECK(text_of(batch, inflated.output.data(), i) == batch.texts[i]);
    }
}

// The warp kernel's steps on the host (devices/inflate/lockstep_decoding.hpp
// with HostLanes), and the CRC-32 from the 32 lanes' pieces.
HostInflated inflate_by_warp(const InflateBatch& batch) {
    static constexpr inflate::Crc32Tables crc = inflate::make_crc32_tables();
    static constexpr inflate::Crc32ShiftPowers powers = inflate::make_crc32_shift_powers();
    const auto tables = std::make_unique<inflate::DecoderTables>();
    HostInflated out;
    out.output.assign(batch.output_bytes, '\0');
    out.outcomes.resize(batch.members.size());
    for (size_t i = 0; i < batch.members.size(); ++i) {
        const InflateMember& m = batch.members[i];
        const auto* in = reinterpret_cast<const unsigned char*>(batch.input.data()) + m.in_offset;
        auto* text = reinterpret_cast<unsigned char*>(out.output.data()) + m.out_offset;
        inflate::LaneDecoder d{};
        HostLanes lanes;
        InflateOutcome& outcome = out.outcomes[i];
        if (!inflate::start_member(in, m.in_size, crc.t, d, *tables, outcome)) continue;
        inflate::decode_member_in_lockstep(d, in, text, m.out_size, *tables, lanes);
        if (!inflate::finish_member(d, in, m.in_size, m.out_size, outcome)) continue;
        uint32_t reg = 0;
        for (uint32_t lane = 0; lane < 32; ++lane) reg ^= inflate::crc32_of_piece(text, m.out_size, lane, crc.t, powers.powers);
        inflate::settle_crc(reg, in, m.in_size, outcome);
    }
    return out;
}

// The warp kernel's steps give the host decoder's outcomes, and its text where ok.
void check_warp_steps_match_host(const InflateBatch& batch) {
    const HostInflated host = inflate_on_host(batch);
    const HostInflated warp = inflate_by_warp(batch);
    for (size_t i = 0; i < batch.members.size(); ++i) {
        INFO("member " << i);
        CHECK(inflate_status_name(warp.outcomes[i].status) == std::string(inflate_status_name(host.outcomes[i].status)));
        CHECK(warp.outcomes[i].offset == host.outcomes[i].offset);
        if (host.outcomes[i].status == InflateStatus::ok) {
            CHECK(text_of(batch, warp.output.data(), i) == text_of(batch, host.output.data(), i));
        }
    }
}

}  // namespace

TEST_CASE("inflate by a warp in lockstep (the warp kernel's steps on the host): the host decoder's outcomes and text") {
    check_warp_steps_match_host(mixed_good_batch(7));
    check_warp_steps_match_host(random_batch(5, 2000, 3000));
    check_warp_steps_match_host(random_batch(11, 100, 70000));
    check_warp_steps_match_host(handmade_batch(23, 60));
    check_warp_steps_match_host(damaged_batch(3).batch);
}

TEST_CASE("inflate_members_on_host: zlib levels 0 to 9, strategies, header fields, empty and 1-byte texts, libdeflate") {
    const InflateBatch batch = mixed_good_batch(7);
    CHECK(batch.members.size() >= 25);
    check_all_ok(batch, inflate_on_host(batch));
}

TEST_CASE("inflate_members_on_host: 200 random members in one batch") {
    const InflateBatch batch = random_batch(11, 200, 70000);
    check_all_ok(batch, inflate_on_host(batch));
}

TEST_CASE("inflate_members_on_host: 5000 small members at uneven offsets") {
    const InflateBatch batch = random_batch(5, 5000, 3000);
    check_all_ok(batch, inflate_on_host(batch));
}

TEST_CASE("inflate_members_on_host: damaged members get their status, the good ones beside them their text") {
    const DamagedBatch damaged = damaged_batch(3);
    const HostInflated inflated = inflate_on_host(damaged.batch);
    REQUIRE(inflated.outcomes.size() == damaged.expected.size());
    for (size_t i = 0; i < damaged.expected.size(); ++i) {
        INFO("member " << i);
        CHECK(inflate_status_name(inflated.outcomes[i].status) == std::string(inflate_status_name(damaged.expected[i])));
        CHECK(inflated.outcomes[i].offset <= damaged.batch.members[i].in_size);
        if (damaged.expected[i] == InflateStatus::ok) CHECK(text_of(damaged.batch, inflated.output.data(), i) == damaged.batch.texts[i]);
        // The decoder refuses exactly what zlib refuses.
        if (damaged.zlib_accepts[i] >= 0) CHECK((damaged.zlib_accepts[i] == 1) == (damaged.expected[i] == InflateStatus::ok));
    }
}

TEST_CASE("inflate_members_on_host: hand-made blocks: overlapping matches of every period, stored blocks of 0 to 65535 bytes") {
    const InflateBatch batch = handmade_batch(23, 60);
    for (size_t i = 0; i < batch.members.size(); ++i) {
        INFO("member " << i);
        CHECK(zlib_accepts(std::string_view(batch.input).substr(batch.members[i].in_offset, batch.members[i].in_size)));
    }
    check_all_ok(batch, inflate_on_host(batch));
}

TEST_CASE("inflate_members_on_host and the warp's steps: matches of 48 bits (15-bit codes and every extra bit) wherever they start") {
    std::mt19937 random(41);
    InflateBatch batch;
    for (int i = 0; i < 4; ++i) {
        std::string text;
        const std::string member = widest_matches_member(random, text);
        CHECK(zlib_accepts(member));
        batch.add(member, std::move(text), i);
    }
    check_all_ok(batch, inflate_on_host(batch));
    check_warp_steps_match_host(batch);
}

TEST_CASE("crc32 combine: the registers of a text's pieces give the CRC-32 of the whole") {
    constexpr inflate::Crc32Tables tables = inflate::make_crc32_tables();
    constexpr inflate::Crc32ShiftPowers powers = inflate::make_crc32_shift_powers();
    std::mt19937 random(29);
    for (size_t size : {size_t{0}, size_t{1}, size_t{7}, size_t{31}, size_t{32}, size_t{33}, size_t{1000}, size_t{70001}}) {
        const std::string text = random_bytes(random, size);
        const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
        const uint32_t whole = static_cast<uint32_t>(crc32(0, bytes, static_cast<uInt>(size)));
        for (size_t pieces : {size_t{1}, size_t{2}, size_t{5}, size_t{32}}) {
            INFO(size << " bytes in " << pieces << " pieces");
            const size_t piece = (size + pieces - 1) / pieces;
            uint32_t combined = 0;
            for (size_t k = 0; k < pieces; ++k) {
                const size_t begin = std::min(size, k * piece), end = std::min(size, begin + piece);
                const uint32_t reg = inflate::crc32_register(k == 0 ? 0xFFFFFFFFu : 0u, bytes + begin, end - begin, tables.t);
                combined ^= inflate::crc32_shift(reg, static_cast<uint32_t>(size - end), powers.powers);
            }
            CHECK(~combined == whole);
        }
    }
}

TEST_CASE("inflate_members_on_host: a text is never written past its member's out_size") {
    std::mt19937 random(17);
    const std::string text = page_text(random, 50000);
    InflateBatch batch;
    batch.add(zlib_member(text), text, 0, 1000);  // ISIZE says more than the caller gives room for
    std::string output(batch.output_bytes + 64, '#');
    InflateOutcome outcome;
    inflate_members_on_host(batch.input.data(), batch.members.data(), 1, output.data(), &outcome);
    CHECK(outcome.status == InflateStatus::output_overflow);
    CHECK(output.substr(0, 700) == text.substr(0, 700));  // all but the last match (258 bytes at most) that fit
    CHECK(output.substr(1000) == std::string(64, '#'));
}

TEST_CASE("inflate_status_name: every status has its name") {
    CHECK(std::string(inflate_status_name(InflateStatus::ok)) == "ok");
    CHECK(std::string(inflate_status_name(InflateStatus::bad_header)) == "bad_header");
    CHECK(std::string(inflate_status_name(InflateStatus::bad_deflate)) == "bad_deflate");
    CHECK(std::string(inflate_status_name(InflateStatus::truncated)) == "truncated");
    CHECK(std::string(inflate_status_name(InflateStatus::trailing_bytes)) == "trailing_bytes");
    CHECK(std::string(inflate_status_name(InflateStatus::output_overflow)) == "output_overflow");
    CHECK(std::string(inflate_status_name(InflateStatus::size_mismatch)) == "size_mismatch");
    CHECK(std::string(inflate_status_name(InflateStatus::crc_mismatch)) == "crc_mismatch");
}
