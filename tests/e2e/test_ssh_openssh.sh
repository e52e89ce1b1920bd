#!/usr/bin/env bash
# The openssh_* cases of tests/e2e/test_ssh.sh (the transport that drives the
# system's ssh client), a file of their own so they run beside the libssh2
# half: the same file, its other half.
WK_SSH_HALF=openssh . "$(dirname "$0")/test_ssh.sh"
