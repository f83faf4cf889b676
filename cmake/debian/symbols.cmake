# CPACK_PROJECT_CONFIG_FILE of cmake/packaging.cmake: cpack includes it once per generator. For DEB it
# writes libglia0's symbols file (CPACK_GLIA_SYMBOLS_FILE): "libglia.so.0 libglia0 #MINVER#", then
# " <symbol>@Base <version>" for each line of abi/glia.symbols. The version is the `@since X.Y` of the
# symbol's declaration in glia.h, as X.Y.0, but never above the version being packaged: until
# project(VERSION) is raised at release, the functions of the next version are already in this
# package, and a dependency on a version no package has would make programs built against it
# uninstallable.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()

# The lines that hold `@since` or GLIA_API, as a list: `;` and brackets replaced first, since a CMake
# list splits at `;` and not inside unbalanced brackets; clang-format's "@since\n * 0.2" joined.
file(READ ${CPACK_GLIA_SOURCE_DIR}/include/glia/glia_base.h glia_base_header)
file(READ ${CPACK_GLIA_SOURCE_DIR}/include/glia/glia.h glia_header)
string(PREPEND glia_header "${glia_base_header}")
string(REPLACE ";" "," glia_header "${glia_header}")
string(REPLACE "[" "(" glia_header "${glia_header}")
string(REPLACE "]" ")" glia_header "${glia_header}")
string(REGEX REPLACE "@since[ \t]*\n[ \t]*\\*[ \t]*" "@since " glia_header "${glia_header}")
string(REGEX MATCHALL "[^\n]*(@since|GLIA_API)[^\n]*" glia_lines "${glia_header}")
set(glia_since "")
foreach(line IN LISTS glia_lines)
  if(line MATCHES "@since ([0-9]+\\.[0-9]+(\\.[0-9]+)?)")
    set(glia_since ${CMAKE_MATCH_1})
  endif()
  if(line MATCHES "GLIA_API.*[ *](glia_[A-Za-z0-9_]+) *\\(")
    set(glia_since_${CMAKE_MATCH_1} ${glia_since})
    set(glia_since "")
  endif()
endforeach()

file(STRINGS ${CPACK_GLIA_SOURCE_DIR}/abi/glia.symbols glia_symbols)
set(glia_text "${CPACK_GLIA_SONAME} ${CPACK_GLIA_RUNTIME_PACKAGE} #MINVER#\n")
string(APPEND glia_text "* Build-Depends-Package: ${CPACK_GLIA_DEV_PACKAGE}\n")
set(glia_capped 0)
set(glia_undated "")
foreach(s IN LISTS glia_symbols)
  set(v "${glia_since_${s}}")
  if(v STREQUAL "")
    list(APPEND glia_undated ${s})
    set(v ${CPACK_GLIA_VERSION})
  elseif(v MATCHES "^[0-9]+\\.[0-9]+$")
    string(APPEND v ".0")
  endif()
  if(v VERSION_GREATER CPACK_GLIA_VERSION)
    math(EXPR glia_capped "${glia_capped} + 1")
    set(v ${CPACK_GLIA_VERSION})
  endif()
  string(APPEND glia_text " ${s}@Base ${v}\n")
endforeach()
if(glia_undated)
  list(JOIN glia_undated ", " glia_undated)
  message(WARNING "glia.h gives no @since for ${glia_undated}: the Debian symbols file says ${CPACK_GLIA_VERSION}")
endif()
if(glia_capped GREATER 0)
  message(STATUS "glia: ${glia_capped} functions are @since a version above ${CPACK_GLIA_VERSION}; "
    "libglia0's symbols file says ${CPACK_GLIA_VERSION} for them until project(VERSION) is raised")
endif()
file(WRITE ${CPACK_GLIA_SYMBOLS_FILE} "${glia_text}")
