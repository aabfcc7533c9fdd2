# Run after invidx_tests is built (-P, script mode): gives the test cases of
# its doctest suite "gpu" (tests/support/gpu_test.hpp) the ctest label gpu,
# and has ctest report them as Skipped where tests/main.cpp said that it
# skipped them for want of a CUDA device. doctest's own ADD_LABELS would run
# the executable once per test case and cannot select a name with a comma.
#   TEST_EXECUTABLE  the test program
#   CTEST_FILE       the file of set_tests_properties calls to write
# The suite "no-gpu" (NO_GPU_TEST_CASE) is the reverse: label no-gpu, and
# Skipped where a device is usable (its own skip line).
function(suite_properties suite properties required out_script)
  execute_process(
    COMMAND "${TEST_EXECUTABLE}" --test-suite=${suite} --list-test-cases
    OUTPUT_VARIABLE output
    RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${TEST_EXECUTABLE} --test-suite=${suite} --list-test-cases failed (${result}):\n${output}")
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
    string(APPEND script "set_tests_properties([==[${line}]==] PROPERTIES ${properties})\n")
    math(EXPR count "${count} + 1")
  endforeach()
  if(required AND count EQUAL 0)
    message(FATAL_ERROR "${TEST_EXECUTABLE} lists no test case of the doctest suite ${suite}")
  endif()
  set(${out_script} "${script}" PARENT_SCOPE)
endfunction()

# The skip lines are tests/main.cpp's kGpuSkipLine and kNoGpuSkipLine (support/gpu_test.hpp).
suite_properties(gpu "LABELS gpu SKIP_REGULAR_EXPRESSION [==[GPU test cases skipped]==]" TRUE gpu_script)
suite_properties(no-gpu
  "LABELS no-gpu SKIP_REGULAR_EXPRESSION [==[Test cases for machines without a usable GPU skipped]==]" FALSE no_gpu_script)
file(WRITE "${CTEST_FILE}" "${gpu_script}${no_gpu_script}")
