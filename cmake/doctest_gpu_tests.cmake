# Run after invidx_tests is built (-P, script mode): gives the test cases of
# its doctest suite "gpu" (tests/support/gpu_test.hpp) the ctest label gpu,
# and has ctest report them as Skipped where tests/main.cpp said that it
# skipped them for want of a CUDA device. doctest's own ADD_LABELS would run
# the executable once per test case and cannot select a name with a comma.
#   TEST_EXECUTABLE  the test program
#   CTEST_FILE       the file of set_tests_properties calls to write
execute_process(
  COMMAND "${TEST_EXECUTABLE}" --test-suite=gpu --list-test-cases
  OUTPUT_VARIABLE output
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --test-suite=gpu --list-test-cases failed (${result}):\n${output}")
endif()

string(REPLACE "\n" ";" lines "${output}")
set(script "")
set(count 0)
foreach(line IN LISTS lines)
  # doctest's header and footer, as doctestAddTests.cmake skips them; the
  # names are the ctest names it gives (no prefix or suffix here).
  if(line STREQUAL "" OR line MATCHES "^=+$" OR line MATCHES [==[^\[doctest\] ]==])
    continue()
  endif()
  # The skip line is tests/main.cpp's kGpuSkipLine (support/gpu_test.hpp).
  string(APPEND script "set_tests_properties([==[${line}]==] PROPERTIES LABELS gpu "
                       "SKIP_REGULAR_EXPRESSION [==[GPU test cases skipped]==])\n")
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} lists no test case of the doctest suite gpu")
endif()
file(WRITE "${CTEST_FILE}" "${script}")
