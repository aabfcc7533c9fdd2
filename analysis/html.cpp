#include "analysis/html.hpp"

#include "analysis/html_rules.hpp"

namespace invidx {
namespace {

const unsigned char* bytes_of(std::string_view in) { return reinterpret_cast<const unsigned char*>(in.data()); }

}  // namespace

size_t html_construct_end(std::string_view in, size_t at) {
    return html_rules::construct_end(bytes_of(in), in.size(), at);
}

void strip_html(std::string_view in, std::string& out) {
    out.reserve(out.size() + in.size());
    const unsigned char* const bytes = bytes_of(in);
    size_t copied_up_to = 0;  // bytes of `in` before this are in `out` or removed
    size_t scan = 0;
    while (scan < in.size()) {
        const size_t at = html_rules::find_markup_start(bytes, in.size(), scan);
        if (at >= in.size()) break;
        const size_t construct_end = html_rules::construct_end(bytes, in.size(), at);
        if (construct_end == 0) {  // ordinary text
            scan = at + 1;
            continue;
        }
        out.append(in.data() + copied_up_to, at - copied_up_to);
        out.push_back(' ');
        copied_up_to = scan = construct_end;
    }
    out.append(in.data() + copied_up_to, in.size() - copied_up_to);
}

}  // namespace invidx
