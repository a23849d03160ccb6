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

void DeckErrors::setArguments(std::vector<std::string> arguments) {
  m_arguments = std::move(arguments);
}

std::string DeckErrors::where(int line, int column) const {
  if (line > 0) return detail::location(m_file, line, column);
  auto const k = static_cast<std::size_t>(-static_cast<long long>(line));
  if (line < 0 && k <= m_arguments.size()) return elided(m_arguments[k - 1], 200);
  return m_file;
}

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
  // The file's errors in file order, then the arguments' in command-line order (line -1, -2...).
  auto const key = [](Entry const& x) {
    return std::make_tuple(x.line < 0, x.line < 0 ? -x.line : x.line, x.column, x.order);
  };
  auto const before = [&key](Entry const& a, Entry const& b) {
    return key(a) < key(b);
  };
  m_first.insert(std::upper_bound(m_first.begin(), m_first.end(), e, before), std::move(e));
  if (m_first.size() > kShown) m_first.pop_back();
}

void DeckErrors::addAll(DeckErrors const& other, int line, int column) {
  for (auto const& e : other.m_first) addText(line, column, e.text);
  m_count += other.m_count - other.m_first.size();  // those past kShown, counted
}

std::string DeckErrors::message() const {
  std::string msg;
  for (auto const& e : m_first) {
    if (!msg.empty()) msg += '\n';
    msg += where(e.line, e.column);
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
