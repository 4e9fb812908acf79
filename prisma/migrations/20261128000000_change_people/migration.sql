-- The person behind a change made through the control plane: their address, groups and how they signed in.
-- Earlier records keep NULL here, and their hashes (audit/chain) cover these columns only when set.
ALTER TABLE "ChangeRecord" ADD COLUMN "actorEmail" TEXT;
ALTER TABLE "ChangeRecord" ADD COLUMN "actorGroups" TEXT;
ALTER TABLE "ChangeRecord" ADD COLUMN "authenticatedBy" TEXT;
