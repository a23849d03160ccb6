#include "YamlTree.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/io/DeckErrors.hpp"

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
      return node.plain ? str('\'', elided(node.text), '\'')
                        : str("the string \"", elided(node.text), '"');
  }
  return "?";
}

namespace {

/// Builds the tree from parser events. yaml-cpp's own node builder keeps the last of two equal
/// keys without a word; here the second one is an error.
class TreeBuilder : public YAML::EventHandler {
 public:
  explicit TreeBuilder(DeckErrors& errors) : m_errors(errors) {}

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
      fatal(mark.line + 1, mark.column + 1, currentPath(),
            "alias to an anchor that is not defined yet",
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
    bool haveKey = false;    // maps: the key of the next entry has been read
    bool dropValue = false;  // maps: that key was wrong (reported); its value is dropped
    YamlEntry pending;
    std::map<std::string, int> keyLines;  // maps: the line of each key given so far
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
  std::map<YAML::anchor_t, YamlNode> m_anchors;
};

}  // namespace

YamlNode parseYaml(std::string const& text, DeckErrors& errors) {
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
