"""What a reason code tells an operator: the hints added to the sentence of an MQError,
by reason, and why a commit's outcome is unknown."""

from __future__ import annotations

from mqconsole.mq.reasons import (
    MQRC_BACKED_OUT,
    MQRC_CALL_INTERRUPTED,
    MQRC_CHANNEL_CONFIG_ERROR,
    MQRC_CONNECTION_BROKEN,
    MQRC_HCONN_ERROR,
    MQRC_HOST_NOT_AVAILABLE,
    MQRC_JSSE_ERROR,
    MQRC_KEY_REPOSITORY_ERROR,
    MQRC_Q_MGR_NAME_ERROR,
    MQRC_Q_MGR_NOT_AVAILABLE,
    MQRC_Q_MGR_QUIESCING,
    MQRC_Q_MGR_STOPPING,
    MQRC_RECONNECT_FAILED,
    MQRC_SSL_INITIALIZATION_ERROR,
    MQRC_SSL_PEER_NAME_ERROR,
    MQRC_SSL_PEER_NAME_MISMATCH,
    MQRC_UNKNOWN_CHANNEL_NAME,
)

# Hints added to the sentence of an MQError, by reason.
HINTS = {
    MQRC_CONNECTION_BROKEN: "the connection to the queue manager broke",
    MQRC_Q_MGR_NAME_ERROR: ("no queue manager of that name answers on this connection (check "
                            "queue_manager, the channel definition table or MQSERVER)"),
    MQRC_Q_MGR_NOT_AVAILABLE: ("the queue manager is not available (is it running, and its "
                               "listener?)"),
    MQRC_Q_MGR_QUIESCING: "the queue manager is quiescing",
    MQRC_Q_MGR_STOPPING: "the queue manager is stopping",
    MQRC_HOST_NOT_AVAILABLE: ("nothing accepted the connection at that host and port (is the "
                              "listener up?)"),
    MQRC_CHANNEL_CONFIG_ERROR: ("the channel definition is not usable (check channel and "
                                "connection_name)"),
    MQRC_UNKNOWN_CHANNEL_NAME: ("the server-connection channel refused the client (check its "
                                "definition and CHLAUTH rules)"),
    MQRC_SSL_INITIALIZATION_ERROR: ("TLS could not start: check cipher_spec (the channel's "
                                    "SSLCIPH), key_repository and certificate_label"),
    MQRC_KEY_REPOSITORY_ERROR: ("the key repository could not be used (key_repository is the "
                                "stem, without .kdb)"),
    MQRC_SSL_PEER_NAME_MISMATCH: ("the queue manager's certificate does not match "
                                  "ssl_peer_name (the distinguished name it must have)"),
    MQRC_SSL_PEER_NAME_ERROR: ("ssl_peer_name is not a distinguished name MQ can read "
                               "(attribute=value pairs, comma separated)"),
    MQRC_JSSE_ERROR: ("the TLS handshake failed: the CipherSpec does not match the channel's "
                      "SSLCIPH"),
    MQRC_BACKED_OUT: "the unit of work was backed out instead of committed",
    MQRC_CALL_INTERRUPTED: ("the connection was lost during the call and re-established: MQ "
                            "cannot tell whether the unit of work was committed"),
}
# Why a commit's outcome is unknown, by reason.
UNKNOWN_HINTS = {
    MQRC_CONNECTION_BROKEN: ("the connection broke during the commit (for a client the commit "
                             "may still have completed)"),
    MQRC_HCONN_ERROR: "the connection handle was no longer valid at the commit",
    MQRC_RECONNECT_FAILED: ("the connection was lost during the commit and could not be "
                            "re-established"),
    MQRC_CALL_INTERRUPTED: "the connection was lost during the commit and re-established",
}
