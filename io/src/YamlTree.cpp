#include "YamlTree.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/io/DeckErrors.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>

namespace eddy::io::detail {

std::string location(std::string const& file, int line, int column) {
  return str(file, ':', line, ':', column);
}

void appendEscaped(std::string& out, unsigned char c) {
  if (c == '\n') {
    out += "\\n";
  } else if (c == '\r') {
    out += "\\r";
  } else if (c == '\t') {
    out += "\\t";
  } else if (c < 0x20 || c == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  } else {
    out += static_cast<char>(c);
  }
}

std::string describe(YamlNode const& node) {
  switch (node.kind) {
    case YamlNode::Kind::Null:
      return "no value";
    case YamlNode::Kind::Map:
      return "a map";
    case YamlNode::Kind::Sequence:
      return "a list";
    case YamlNode::Kind::Scalar:
      return node.plain ? str('\'', elided(node.text), '\'')
                        : str("the string \"", elided(node.text), '"');
  }
  return "?";
}

namespace {

/// What a subtree costs: its nodes, the bytes of its keys and values, and its depth (0 for a
/// scalar, 1 for a list of scalars, ...).
struct Cost {
  std::size_t nodes = 0;
  std::size_t bytes = 0;
  int depth = 0;
};

/// Builds the tree from parser events. yaml-cpp's own node builder keeps the last of two equal
/// keys without a word; here the second one is an error. Every node is counted as it is built
/// or copied from an anchor, against io::DeckLimits.
class TreeBuilder : public YAML::EventHandler {
 public:
  explicit TreeBuilder(DeckErrors& errors) : m_errors(errors) {}

  std::vector<YamlNode> documents;
  std::vector<YAML::Mark> documentMarks;

  void OnDocumentStart(YAML::Mark const& mark) override { documentMarks.push_back(mark); }
  void OnDocumentEnd() override {}

  void OnNull(YAML::Mark const& mark, YAML::anchor_t anchor) override {
    finish(leaf(YamlNode::Kind::Null, mark), anchor, spend(mark, {1, 0, 0}));
  }

  void OnAlias(YAML::Mark const& mark, YAML::anchor_t anchor) override {
    auto const it = m_anchors.find(anchor);
    if (it == m_anchors.end())
      fatal(mark.line + 1, mark.column + 1, currentPath(),
            "alias to an anchor that is not defined yet",
            "define the anchor (&name) before using it (*name)");
    // Measured before it is copied: a nest of aliases never expands past the limits.
    Cost const cost = spend(mark, it->second.cost, /*alias=*/true);
    YamlNode n = it->second.node;
    n.line = mark.line + 1;
    n.column = mark.column + 1;
    finish(std::move(n), 0, cost);
  }

  void OnScalar(YAML::Mark const& mark, std::string const& tag, YAML::anchor_t anchor,
                std::string const& value) override {
    Cost const cost = spend(mark, {1, value.size(), 0});
    YamlNode n = leaf(YamlNode::Kind::Scalar, mark);
    n.text = value;
    // "?" = plain; "!" = quoted or block scalar; core tags other than !!str keep it plain.
    static std::string const core = "tag:yaml.org,2002:";
    n.plain = tag == "?" || (tag.compare(0, core.size(), core) == 0 && tag != core + "str");
    finish(std::move(n), anchor, cost);
  }

  void OnSequenceStart(YAML::Mark const& mark, std::string const&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(YamlNode::Kind::Sequence, mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(YAML::Mark const& mark, std::string const&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(YamlNode::Kind::Map, mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    YamlNode node;
    YAML::anchor_t anchor = 0;
    std::string path;
    Cost cost;
    bool haveKey = false;    // maps: the key of the next entry has been read
    bool dropValue = false;  // maps: that key was wrong (reported); its value is dropped
    YamlEntry pending;
    std::map<std::string, int> keyLines;  // maps: the line of each key given so far
  };
  struct Anchored {
    YamlNode node;
    Cost cost;
  };

  static YamlNode leaf(YamlNode::Kind kind, YAML::Mark const& mark) {
    YamlNode n;
    n.kind = kind;
    n.line = mark.line + 1;
    n.column = mark.column + 1;
    return n;
  }

  static std::string join(std::string const& path, std::string const& key) {
    return path.empty() ? elided(key) : path + "." + elided(key);
  }

  /// The key path of the node that is about to complete.
  std::string currentPath() const {
    if (m_stack.empty()) return "(top level)";
    Open const& p = m_stack.back();
    if (p.node.kind == YamlNode::Kind::Sequence)
      return str(p.path.empty() ? "(top level)" : p.path, '[', p.node.items.size(), ']');
    if (p.haveKey) return join(p.path, p.pending.key);
    return p.path.empty() ? "(top level)" : p.path;
  }

  /// An error after which the tree cannot be built: reported with those found so far.
  [[noreturn]] void fatal(int line, int column, std::string const& path, std::string const& what,
                          std::string const& allowed) const {
    m_errors.add(line, column, path, what, allowed);
    throw DeckError(m_errors.message());
  }

  /// Counts `cost` (a node about to be built at `mark`, or the subtree of the alias there)
  /// against the limits; returns it.
  Cost spend(YAML::Mark const& mark, Cost const& cost, bool alias = false) {
    int const line = mark.line + 1, column = mark.column + 1;
    char const* const what = alias ? "this alias makes " : "";
    int const depth = static_cast<int>(m_stack.size()) + cost.depth;
    if (depth > DeckLimits::kDepth)
      fatal(line, column, currentPath(),
            str(alias ? "this alias nests maps and lists " : "maps and lists nested ", depth,
                " deep"),
            str("expected at most ", DeckLimits::kDepth,
                " (the sections of a deck nest at most 6 deep)"));
    m_nodes += cost.nodes;
    m_bytes += cost.bytes;
    if (m_nodes > DeckLimits::kNodes)
      fatal(line, column, currentPath(),
            str(alias ? "this alias makes the deck hold" : "the deck holds", " more than ",
                DeckLimits::kNodes, " YAML nodes (keys, values, lists and maps)"),
            str("expected at most ", DeckLimits::kNodes,
                " (a deck holds parameters: about a hundred values)"));
    if (m_bytes > DeckLimits::kTextBytes)
      fatal(
          line, column, currentPath(),
          str(what, "the deck's keys and values come to more than ", DeckLimits::kTextBytes,
              " bytes"),
          str("expected at most ", DeckLimits::kTextBytes, " (a deck holds parameters, not data)"));
    return cost;
  }

  void open(YamlNode::Kind kind, YAML::Mark const& mark, YAML::anchor_t anchor) {
    Cost const cost = spend(mark, {1, 0, 1});
    Open o;
    o.node = leaf(kind, mark);
    o.anchor = anchor;
    o.cost = cost;
    std::string const p = currentPath();
    o.path = p == "(top level)" ? "" : p;
    m_stack.push_back(std::move(o));
  }

  void close() {
    Open o = std::move(m_stack.back());
    m_stack.pop_back();
    finish(std::move(o.node), o.anchor, o.cost);
  }

  void finish(YamlNode n, YAML::anchor_t anchor, Cost const& cost) {
    if (anchor != 0) m_anchors[anchor] = Anchored{n, cost};
    if (m_stack.empty()) {
      documents.push_back(std::move(n));
      return;
    }
    Open& p = m_stack.back();
    p.cost.nodes += cost.nodes;
    p.cost.bytes += cost.bytes;
    p.cost.depth = std::max(p.cost.depth, cost.depth + 1);
    if (p.node.kind == YamlNode::Kind::Sequence) {
      p.node.items.push_back(std::move(n));
    } else if (!p.haveKey) {
      p.haveKey = true;
      p.pending.line = n.line;
      p.pending.column = n.column;
      if (n.kind != YamlNode::Kind::Scalar) {
        m_errors.add(n.line, n.column, p.path.empty() ? "(top level)" : p.path,
                     str("a key is ", describe(n)), "keys are plain names such as 'steps'");
        p.dropValue = true;
        return;
      }
      p.pending.key = std::move(n.text);
      auto const first = p.keyLines.find(p.pending.key);
      if (first != p.keyLines.end()) {
        m_errors.add(p.pending.line, p.pending.column, join(p.path, p.pending.key),
                     str("duplicate key (first given at line ", first->second, ")"),
                     "each key may appear only once; remove one of them");
        p.dropValue = true;
        return;
      }
      p.keyLines.emplace(p.pending.key, p.pending.line);
    } else {
      if (!p.dropValue) {
        if (n.kind == YamlNode::Kind::Null) {  // yaml-cpp places an empty value after its key
          n.line = p.pending.line;
          n.column = p.pending.column;
        }
        p.pending.value = std::move(n);
        p.node.entries.push_back(std::move(p.pending));
      }
      p.pending = YamlEntry{};
      p.haveKey = false;
      p.dropValue = false;
    }
  }

  DeckErrors& m_errors;
  std::vector<Open> m_stack;
  std::map<YAML::anchor_t, Anchored> m_anchors;
  std::size_t m_nodes = 0;
  std::size_t m_bytes = 0;
};

/// `line:column` (1-based) of byte `offset` of `text`.
std::pair<int, int> placeOf(std::string const& text, std::size_t offset) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace

YamlNode parseYaml(std::string const& text, DeckErrors& errors) {
  if (text.size() > DeckLimits::kBytes) {
    auto const [line, column] = placeOf(text, DeckLimits::kBytes);
    errors.add(line, column, "",
               str("the deck is longer than 1 MiB (", DeckLimits::kBytes, " bytes); byte ",
                   DeckLimits::kBytes + 1, " is here"),
               "expected a deck of at most 1 MiB (a deck holds parameters, not data)");
    errors.throwIfAny();
  }
  std::istringstream in(text);
  TreeBuilder builder(errors);
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
      if (builder.documents.size() > 1) {
        YAML::Mark const m = builder.documentMarks.at(1);
        errors.addText(m.line + 1, m.column + 1,
                       "(top level): a second YAML document; a deck is one document "
                       "(remove the '---' separator)");
        errors.throwIfAny();
      }
    }
  } catch (YAML::Exception const& e) {
    int const line = e.mark.is_null() ? 1 : e.mark.line + 1;
    int const col = e.mark.is_null() ? 1 : e.mark.column + 1;
    errors.addText(line, col,
                   str("YAML syntax error: ", elided(e.msg, 200),
                       "; the deck must be valid YAML (check indentation, ':' after keys, "
                       "brackets and quotes)"));
    errors.throwIfAny();
  }
  if (builder.documents.empty()) return YamlNode{};
  return std::move(builder.documents.front());
}

}  // namespace eddy::io::detail
