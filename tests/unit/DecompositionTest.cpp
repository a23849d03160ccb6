// placeholder: written by its owner
#include <gtest/gtest.h>
