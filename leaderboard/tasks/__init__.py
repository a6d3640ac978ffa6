"""The write side's task data: contracts and trace corpora imported into the database, and a
task's page data."""
