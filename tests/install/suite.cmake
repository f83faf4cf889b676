# Installs the build tree into a fresh prefix and builds a pkg-config consumer and a CMake
# consumer against it (run.sh). Sanitized builds build the consumers sanitized too, since an
# instrumented libglia needs the sanitizer runtime loaded first.
add_test(NAME install.consumers
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh ${CMAKE_COMMAND} ${PROJECT_BINARY_DIR}
    ${CMAKE_CURRENT_BINARY_DIR}/install_test ${CMAKE_INSTALL_LIBDIR} ${CMAKE_C_COMPILER} ${PROJECT_VERSION}
    "${GLIA_SANITIZE}")
set_tests_properties(install.consumers PROPERTIES LABELS install SKIP_RETURN_CODE 77 TIMEOUT 300)
