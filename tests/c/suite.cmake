# The C API test: a plain C99 program, compiled as strictly as a C user's build may be.
add_executable(c_api_test ${CMAKE_CURRENT_LIST_DIR}/api_test.c)
target_link_libraries(c_api_test PRIVATE glia)
set_target_properties(c_api_test PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(c_api_test PRIVATE -pedantic -Werror -Wall -Wextra)
add_test(NAME c.api_test COMMAND c_api_test)
set_tests_properties(c.api_test PROPERTIES LABELS c)
