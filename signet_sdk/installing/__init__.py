"""Helpers the harness installers share: editing a user's config file in place.

A harness's config file is the user's: an installer may add and remove its
own entries, never reformat or drop what is already there. The editors here
touch only the bytes of the members they change.
"""
