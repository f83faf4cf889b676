# ABI check: libglia exports exactly the GLIA_API functions of glia.h, recorded in abi/glia.symbols,
# under the SONAME libglia.so.<major>.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME abi.exports
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_exports.py
    --library $<TARGET_FILE:glia>
    --header ${PROJECT_SOURCE_DIR}/include/glia/glia.h
    --symbols ${PROJECT_SOURCE_DIR}/abi/glia.symbols
    --nm ${CMAKE_NM} --readelf ${CMAKE_READELF})
set_tests_properties(abi.exports PROPERTIES LABELS abi)
