"""TLC's numbers, each under the name TLC's own source gives it, and nowhere else.

Message codes (the `code` of `@!@!@STARTMSG code:severity`) are constants of `tlc2.output.EC`,
exit statuses of `tlc2.output.EC.ExitStatus`, severities of `tlc2.output.MP`, so a name used here
can be looked up in TLC's source. The values were read from the pinned jar with
`javap -constants -classpath tla2tools.jar 'tlc2.output.EC'` (and `'tlc2.output.EC$ExitStatus'`,
`'tlc2.output.MP'`); `tests/test_tlc_codes.py` reads them again, so a new jar that renumbers one
fails there. Only the numbers the scorer reads are listed.
"""

from __future__ import annotations


class EC:
    """Message codes (`tlc2.output.EC`)."""

    GENERAL = 1000  # an evaluation error; the message it reports is nested inside it
    TLC_NESTED_EXPRESSION = 2103  # the positions of the expressions being evaluated
    TLC_ASSUMPTION_FALSE = 2104
    TLC_INVARIANT_VIOLATED_BEHAVIOR = 2110  # names the violated invariant
    TLC_DEADLOCK_REACHED = 2114
    TLC_TEMPORAL_PROPERTY_VIOLATED = 2116
    TLC_BEHAVIOR_UP_TO_THIS_POINT = 2121  # a safety counterexample begins
    TLC_BACK_TO_STATE = 2122  # a lasso loops back to an earlier state
    TLC_INIT_GENERATED1 = 2190  # "Finished computing initial states: N distinct states ..."
    TLC_SUCCESS = 2193
    TLC_STATS = 2199  # "... distinct states found, N states left on queue."
    TLC_COVERAGE_START = 2201
    TLC_COVERAGE_END = 2202
    TLC_STATE_PRINT2 = 2217  # one state of a trace
    TLC_STATE_PRINT3 = 2218  # a trace ends in infinite stuttering
    TLC_SANY_END = 2219
    TLC_SANY_START = 2220
    TLC_COVERAGE_VALUE = 2221
    TLC_CONFIG_VALUE_NOT_ASSIGNED_TO_CONSTANT_PARAM = 2222
    TLC_CONFIG_SPECIFIED_NOT_DEFINED = 2229
    TLC_CONFIG_ID_MUST_NOT_BE_CONSTANT = 2233
    TLC_CONFIG_OP_NO_ARGS = 2234
    TLC_VERSION = 2262
    TLC_COUNTER_EXAMPLE = 2264  # a liveness counterexample begins
    TLC_COVERAGE_NEXT = 2772  # one action of Next with its counts
    TLC_COVERAGE_INIT = 2773
    TLC_COVERAGE_VALUE_COST = 2775
    TLC_PARSING_FAILED = 3002

    class ExitStatus:
        """Exit statuses (`tlc2.output.EC.ExitStatus`)."""

        SUCCESS = 0
        VIOLATION_DEADLOCK = 11
        VIOLATION_SAFETY = 12
        VIOLATION_LIVENESS = 13
        FAILURE_SPEC_EVAL = 75  # evaluating the spec raised an error
        ERROR_SPEC_PARSE = 150
        ERROR_CONFIG_PARSE = 151


# Groupings of our own (TLC has no name for them).
# The spec or the cfg was rejected before any state was explored: every other run fails the same.
SETUP_EXITS = (EC.ExitStatus.ERROR_SPEC_PARSE, EC.ExitStatus.ERROR_CONFIG_PARSE)
# The block of message codes TLC numbers its configuration errors (TLC_CONFIG_*) in, among other
# model-checker messages.
TLC_2200S = range(2200, 2300)


class MP:
    """Message severities (`tlc2.output.MP`)."""

    NONE = 0
    ERROR = 1
    TLCBUG = 2
    WARNING = 3
    STATE = 4
