#include "YamlTree.hpp"

#include "eddy/core/Error.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <map>
#include <sstream>
#include <utility>

namespace eddy::io::detail {

std::string location(std::string const& file, int line, int column) {
  return str(file, ':', line, ':', column);
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
      return node.plain ? str('\'', node.text, '\'') : str("the string \"", node.text, '"');
  }
  return "?";
}

namespace {

/// Builds the tree from parser events. yaml-cpp's own node builder keeps the last of two equal
/// keys without a word; here the second one is an error.
class TreeBuilder : public YAML::EventHandler {
 public:
  explicit TreeBuilder(std::string const& file) : m_file(file) {}

  std::vector<YamlNode> documents;
  std::vector<YAML::Mark> documentMarks;

  void OnDocumentStart(YAML::Mark const& mark) override { documentMarks.push_back(mark); }
  void OnDocumentEnd() override {}

  void OnNull(YAML::Mark const& mark, YAML::anchor_t anchor) override {
    finish(leaf(YamlNode::Kind::Null, mark), anchor);
  }

  void OnAlias(YAML::Mark const& mark, YAML::anchor_t anchor) override {
    auto const it = m_anchors.find(anchor);
    if (it == m_anchors.end())
      fail(mark, currentPath(), "alias to an anchor that is not defined yet",
           "define the anchor (&name) before using it (*name)");
    YamlNode n = it->second;
    n.line = mark.line + 1;
    n.column = mark.column + 1;
    finish(std::move(n), 0);
  }

  void OnScalar(YAML::Mark const& mark, std::string const& tag, YAML::anchor_t anchor,
                std::string const& value) override {
    YamlNode n = leaf(YamlNode::Kind::Scalar, mark);
    n.text = value;
    // "?" = plain; "!" = quoted or block scalar; core tags other than !!str keep it plain.
    static std::string const core = "tag:yaml.org,2002:";
    n.plain = tag == "?" || (tag.compare(0, core.size(), core) == 0 && tag != core + "str");
    finish(std::move(n), anchor);
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
    bool haveKey = false;  // maps: the key of the next entry has been read
    YamlEntry pending;
  };

  static YamlNode leaf(YamlNode::Kind kind, YAML::Mark const& mark) {
    YamlNode n;
    n.kind = kind;
    n.line = mark.line + 1;
    n.column = mark.column + 1;
    return n;
  }

  static std::string join(std::string const& path, std::string const& key) {
    return path.empty() ? key : path + "." + key;
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

  [[noreturn]] void fail(YAML::Mark const& mark, std::string const& path, std::string const& what,
                         std::string const& allowed) const {
    throw DeckError(str(location(m_file, mark.line + 1, mark.column + 1), ": ", path, ": ", what,
                        "; ", allowed));
  }
  [[noreturn]] void fail(int line, int column, std::string const& path, std::string const& what,
                         std::string const& allowed) const {
    throw DeckError(str(location(m_file, line, column), ": ", path, ": ", what, "; ", allowed));
  }

  void open(YamlNode::Kind kind, YAML::Mark const& mark, YAML::anchor_t anchor) {
    Open o;
    o.node = leaf(kind, mark);
    o.anchor = anchor;
    std::string const p = currentPath();
    o.path = p == "(top level)" ? "" : p;
    m_stack.push_back(std::move(o));
  }

  void close() {
    Open o = std::move(m_stack.back());
    m_stack.pop_back();
    finish(std::move(o.node), o.anchor);
  }

  void finish(YamlNode n, YAML::anchor_t anchor) {
    if (anchor != 0) m_anchors[anchor] = n;
    if (m_stack.empty()) {
      documents.push_back(std::move(n));
      return;
    }
    Open& p = m_stack.back();
    if (p.node.kind == YamlNode::Kind::Sequence) {
      p.node.items.push_back(std::move(n));
    } else if (!p.haveKey) {
      if (n.kind != YamlNode::Kind::Scalar)
        fail(n.line, n.column, p.path.empty() ? "(top level)" : p.path,
             str("a key is ", describe(n)), "keys are plain names such as 'steps'");
      p.pending.key = n.text;
      p.pending.line = n.line;
      p.pending.column = n.column;
      p.haveKey = true;
    } else {
      for (auto const& e : p.node.entries)
        if (e.key == p.pending.key)
          fail(p.pending.line, p.pending.column, join(p.path, p.pending.key),
               str("duplicate key (first given at line ", e.line, ")"),
               "each key may appear only once; remove one of them");
      if (n.kind == YamlNode::Kind::Null) {  // yaml-cpp places an empty value after its key
        n.line = p.pending.line;
        n.column = p.pending.column;
      }
      p.pending.value = std::move(n);
      p.node.entries.push_back(std::move(p.pending));
      p.pending = YamlEntry{};
      p.haveKey = false;
    }
  }

  std::string const& m_file;
  std::vector<Open> m_stack;
  std::map<YAML::anchor_t, YamlNode> m_anchors;
};

}  // namespace

YamlNode parseYaml(std::string const& text, std::string const& file) {
  std::istringstream in(text);
  TreeBuilder builder(file);
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
      if (builder.documents.size() > 1) {
        YAML::Mark const m = builder.documentMarks.at(1);
        throw DeckError(str(location(file, m.line + 1, m.column + 1),
                            ": (top level): a second YAML document; a deck is one document "
                            "(remove the '---' separator)"));
      }
    }
  } catch (YAML::Exception const& e) {
    int const line = e.mark.is_null() ? 1 : e.mark.line + 1;
    int const col = e.mark.is_null() ? 1 : e.mark.column + 1;
    throw DeckError(str(location(file, line, col), ": YAML syntax error: ", e.msg,
                        "; the deck must be valid YAML (check indentation, ':' after keys, "
                        "brackets and quotes)"));
  }
  if (builder.documents.empty()) return YamlNode{};
  return std::move(builder.documents.front());
}

}  // namespace eddy::io::detail
