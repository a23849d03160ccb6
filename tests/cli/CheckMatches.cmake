# Included by the command checks: fails unless the output `all` matches every regex in MATCH and
# none in NO_MATCH.
foreach(re IN LISTS MATCH)
  if(NOT all MATCHES "${re}")
    message(FATAL_ERROR "output does not match '${re}'")
  endif()
endforeach()
foreach(re IN LISTS NO_MATCH)
  if(all MATCHES "${re}")
    message(FATAL_ERROR "output matches '${re}' (at '${CMAKE_MATCH_0}'), which it must not")
  endif()
endforeach()
