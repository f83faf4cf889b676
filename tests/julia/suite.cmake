# The Julia binding, checked without Julia (not packaged for Debian 12): every ccall and
# @cfunction of bindings/julia/src against include/glia/glia.h and abi/glia.symbols
# (check_ccalls.py), and the checker's own proof that it fails: a deliberately broken fixture
# and mutated copies of Glia.jl (check_ccalls_test.py, which also compares the struct layouts
# it computes with the C compiler's). Both run whether or not julia exists;
# bindings/julia/test.sh runs the package's tests where it does.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME julia.ccalls
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/bindings/julia/check_ccalls.py
    --header ${PROJECT_SOURCE_DIR}/include/glia/glia.h
    --symbols ${PROJECT_SOURCE_DIR}/abi/glia.symbols
    ${PROJECT_SOURCE_DIR}/bindings/julia/src)
add_test(NAME julia.ccalls_self_test
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/bindings/julia/check_ccalls_test.py)
set_tests_properties(julia.ccalls julia.ccalls_self_test PROPERTIES LABELS julia)
set_tests_properties(julia.ccalls_self_test PROPERTIES ENVIRONMENT "CC=${CMAKE_C_COMPILER}")
