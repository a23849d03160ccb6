#include "YamlTree.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/io/Deck.hpp"

#include <utility>

namespace eddy::io {

std::string DeckOverride::text() const {
  std::string out;
  for (unsigned char c : keyPath + '=' + value) detail::appendEscaped(out, c);
  return out;
}

std::string DeckOverride::argument() const {
  return "--set " + text();
}

DeckOverride parseOverride(std::string const& text) {
  auto const usage = [&text](std::string const& what) {
    return UsageError(str("--set '", elided(text), "': ", what,
                          "; expected --set key.path=value, e.g. --set run.steps=200"));
  };
  auto const eq = text.find('=');
  if (eq == std::string::npos) throw usage("no '=' between key path and value");
  std::string key = text.substr(0, eq);
  auto const first = key.find_first_not_of(" \t");
  key = first == std::string::npos ? std::string()
                                   : key.substr(first, key.find_last_not_of(" \t") + 1 - first);
  if (key.empty()) throw usage("no key path before '='");
  if (key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
    throw usage(str("the key path '", elided(key), "' has an empty name"));
  return {key, text.substr(eq + 1)};
}

namespace detail {

namespace {

/// Places `node` and everything in it at `line`, column 0 (an override's argument).
void relocate(YamlNode& node, int line) {
  node.line = line;
  node.column = 0;
  for (auto& item : node.items) relocate(item, line);
  for (auto& e : node.entries) {
    e.line = line;
    e.column = 0;
    relocate(e.value, line);
  }
}

}  // namespace

void applyOverrides(YamlNode& root, std::vector<DeckOverride> const& overrides,
                    DeckErrors& errors) {
  if (overrides.empty()) return;
  if (root.kind == YamlNode::Kind::Null) root.kind = YamlNode::Kind::Map;
  if (root.kind != YamlNode::Kind::Map) return;
  for (std::size_t k = 0; k < overrides.size(); ++k) {
    DeckOverride const& o = overrides[k];
    int const line = -static_cast<int>(k + 1);
    DeckErrors valueErrors(o.argument());
    YamlNode value;
    try {
      value = parseYaml(o.value, valueErrors);
    } catch (DeckError const&) {
      // Its errors are in valueErrors.
    }
    if (!valueErrors.empty()) {
      errors.addAll(valueErrors, line, 0);
      continue;
    }
    relocate(value, line);

    YamlNode* node = &root;
    std::string path;
    for (std::size_t at = 0;;) {
      auto const dot = o.keyPath.find('.', at);
      std::string const name = o.keyPath.substr(at, dot == std::string::npos ? dot : dot - at);
      // `run:` without a value is a section of defaults: the override's key goes in it.
      if (node->kind == YamlNode::Kind::Null) node->kind = YamlNode::Kind::Map;
      if (node->kind != YamlNode::Kind::Map) {
        errors.add(
            line, 0, path,
            str("holds ", describe(*node), ", not a section, so ", o.keyPath, " cannot be set"),
            "expected a key path through sections, such as run.steps");
        break;
      }
      path = path.empty() ? name : path + '.' + name;
      YamlEntry* entry = nullptr;
      for (auto& e : node->entries)
        if (e.key == name) entry = &e;
      if (!entry) {
        YamlEntry added;
        added.key = name;
        added.line = line;
        added.column = 0;
        added.value.line = line;
        added.value.column = 0;
        node->entries.push_back(std::move(added));
        entry = &node->entries.back();
      }
      if (dot == std::string::npos) {
        entry->line = line;
        entry->column = 0;
        entry->value = value;
        break;
      }
      node = &entry->value;
      at = dot + 1;
    }
  }
}

}  // namespace detail

}  // namespace eddy::io
