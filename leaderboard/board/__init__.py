"""The read side: the board's rules over the stored cells (aggregate, policies, intervals), the
stored board kept change by change, and the tables and charts the pages and exports show."""
