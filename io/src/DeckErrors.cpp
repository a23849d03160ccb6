#include "eddy/io/DeckErrors.hpp"

#include "YamlTree.hpp"
#include "eddy/core/Error.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <utility>

namespace eddy::io {

std::string elided(std::string const& text, std::size_t keep) {
  // Characters are UTF-8 code points: a continuation byte (10xxxxxx) does not start one.
  auto starts = [](unsigned char c) {
    return (c & 0xC0) != 0x80;
  };
  std::size_t const characters = static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [&](char c) { return starts(c); }));
  std::string out;
  std::size_t shown = 0;
  for (unsigned char c : text) {
    if (starts(c) && shown++ == keep) break;
    detail::appendEscaped(out, c);
  }
  if (characters > keep) out += str("... (", characters, " characters)");
  return out;
}

DeckErrors::DeckErrors(std::string file) : m_file(std::move(file)) {}

void DeckErrors::add(int line, int column, std::string const& path, std::string const& what,
                     std::string const& expected) {
  // The checks elide the values they quote; the cut at 500 characters keeps the promise of one
  // short line per error for any check that does not.
  addText(line, column,
          str(elided(path.empty() ? "(top level)" : path, 500), ": ", elided(what, 500), "; ",
              elided(expected, 500)));
}

void DeckErrors::addText(int line, int column, std::string const& text) {
  Entry e{line, column, m_count++, text};
  auto const before = [](Entry const& a, Entry const& b) {
    return std::tie(a.line, a.column, a.order) < std::tie(b.line, b.column, b.order);
  };
  m_first.insert(std::upper_bound(m_first.begin(), m_first.end(), e, before), std::move(e));
  if (m_first.size() > kShown) m_first.pop_back();
}

std::string DeckErrors::message() const {
  std::string msg;
  for (auto const& e : m_first) {
    if (!msg.empty()) msg += '\n';
    msg += e.line > 0 ? detail::location(m_file, e.line, e.column) : m_file;
    msg += ": " + e.text;
  }
  if (m_count > m_first.size())
    msg += str("\n... and ", m_count - m_first.size(), " more error",
               m_count - m_first.size() > 1 ? "s" : "");
  return msg;
}

void DeckErrors::throwIfAny() const {
  if (!empty()) throw DeckError(message());
}

}  // namespace eddy::io
