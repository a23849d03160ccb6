/// @file DataTable.hpp
/// @brief Reference tables of tests/data: CSV files of '#' comment lines (the source and its
/// citation), a header line, then rows of numbers.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace eddy::test {

/// Every row after the header of the table at `path`, as its numbers (fails the test when the
/// file cannot be read).
inline std::vector<std::vector<double>> numericRows(std::string const& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::vector<std::vector<double>> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::stringstream ss(line);
    std::vector<double> v;
    std::string cell;
    while (std::getline(ss, cell, ',')) v.push_back(std::stod(cell));
    rows.push_back(std::move(v));
  }
  return rows;
}

}  // namespace eddy::test
