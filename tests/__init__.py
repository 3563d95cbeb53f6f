"""The SDK's tests, laid out as the package: ``tests/<layer>/test_<module>.py`` tests
``signet_sdk/<layer>/<module>.py``, and a layer's fault and bad-input tests sit in its folder.

Every folder is a package, so two layers may each have a ``test_<module>.py`` of the same
name; the helpers several layers share (``fault_support``, ``bad_input_support``) live here
and are imported relatively. Checks of the whole project are in ``project/``; the SDK against
the real daemons in ``real_daemon/``, and against answers of newer daemons in ``daemon_newer/``.
"""
