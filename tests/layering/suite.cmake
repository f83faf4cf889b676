# Layering check (design/ARCHITECTURE.md): no file includes a header of a later layer, cuda/ sees
# only core/, and only src/capi/ knows the C ABI. The layer order is src/CMakeLists.txt's.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
get_directory_property(glia_layers DIRECTORY ${PROJECT_SOURCE_DIR}/src DEFINITION GLIA_LAYERS)
add_test(NAME layering.includes
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_layers.py
    --root ${PROJECT_SOURCE_DIR} --layers ${glia_layers})
set_tests_properties(layering.includes PROPERTIES LABELS layering)
