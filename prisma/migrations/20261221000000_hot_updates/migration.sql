-- Room on each page for HOT updates (no index entries written) of the rows a run updates at every step:
-- a run's row changes 6-7 times in its life and, with full pages, about half of those updates went to
-- a new page and wrote an entry into each of the table's six indexes. Applies to pages written from now on.
ALTER TABLE "runs" SET (fillfactor = 70);
ALTER TABLE "chats" SET (fillfactor = 85);
ALTER TABLE "tool_calls" SET (fillfactor = 85);
