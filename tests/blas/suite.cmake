# Note [Lazy OpenBLAS]: libglia loads OpenBLAS on the first GEMM that needs it, in a fresh process
# each time: with OpenBLAS (blas.lazy_load) and without it (blas.none: GLIA_BLAS=none).
add_executable(lazy_blas_test ${CMAKE_CURRENT_LIST_DIR}/lazy_blas.c)
target_link_libraries(lazy_blas_test PRIVATE glia m)
set_target_properties(lazy_blas_test PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
target_compile_options(lazy_blas_test PRIVATE -Wall -Wextra -Werror)
add_test(NAME blas.lazy_load COMMAND lazy_blas_test)
add_test(NAME blas.none COMMAND lazy_blas_test)
set_tests_properties(blas.lazy_load PROPERTIES LABELS blas TIMEOUT 120 ENVIRONMENT "GLIA_BLAS=")
set_tests_properties(blas.none PROPERTIES LABELS blas TIMEOUT 120 ENVIRONMENT "GLIA_BLAS=none")
