# ABI checks. (1) libglia exports exactly the GLIA_API functions of glia.h, recorded in abi/glia.symbols,
# under the SONAME libglia.so.<major>.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME abi.exports
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_exports.py
    --library $<TARGET_FILE:glia>
    --header ${PROJECT_SOURCE_DIR}/include/glia/glia.h
    --symbols ${PROJECT_SOURCE_DIR}/abi/glia.symbols
    --nm ${CMAKE_NM} --readelf ${CMAKE_READELF})
set_tests_properties(abi.exports PROPERTIES LABELS abi)

# Size, alignment and field offsets of every public struct of glia.h against abi/glia.layout
# (a reordered or resized field fails; an appended one is recorded with --update).
add_test(NAME abi.struct_layout
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/struct_layout.py
    --cc ${CMAKE_C_COMPILER} --include ${PROJECT_SOURCE_DIR}/include --layout ${PROJECT_SOURCE_DIR}/abi/glia.layout)
set_tests_properties(abi.struct_layout PROPERTIES LABELS abi SKIP_RETURN_CODE 77)

# The naming rules of docs/c-api.md ("one spelling per concept"): out-parameters, array lengths, optional
# arguments, padding_mode vs padding_kind.
add_test(NAME abi.naming
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/naming.py ${PROJECT_SOURCE_DIR}/include/glia/glia_base.h
          ${PROJECT_SOURCE_DIR}/include/glia/glia.h)
set_tests_properties(abi.naming PROPERTIES LABELS abi)
