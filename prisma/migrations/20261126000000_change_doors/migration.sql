-- A change record for every door: who kube-apiserver saw, the door and source, and the link between the records
-- of one write.
ALTER TABLE "ChangeRecord" ADD COLUMN "door" TEXT NOT NULL DEFAULT 'controlplane';
ALTER TABLE "ChangeRecord" ADD COLUMN "source" TEXT NOT NULL DEFAULT 'controlplane';
ALTER TABLE "ChangeRecord" ADD COLUMN "auditId" TEXT;
ALTER TABLE "ChangeRecord" ADD COLUMN "kubeUser" TEXT;
ALTER TABLE "ChangeRecord" ADD COLUMN "kubeGroups" TEXT;
ALTER TABLE "ChangeRecord" ADD COLUMN "impersonator" TEXT;
ALTER TABLE "ChangeRecord" ADD COLUMN "fieldManager" TEXT;
ALTER TABLE "ChangeRecord" ADD COLUMN "generation" INTEGER;
ALTER TABLE "ChangeRecord" ADD COLUMN "joinKey" TEXT;
ALTER TABLE "ChangeRecord" ADD COLUMN "completes" INTEGER;
ALTER TABLE "ChangeRecord" ADD COLUMN "dedupeKey" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "ChangeRecord_dedupeKey_key" ON "ChangeRecord"("dedupeKey");

-- CreateIndex
CREATE INDEX "ChangeRecord_joinKey_idx" ON "ChangeRecord"("joinKey");

-- CreateIndex
CREATE INDEX "ChangeRecord_completes_idx" ON "ChangeRecord"("completes");

-- CreateIndex
CREATE INDEX "ChangeRecord_uid_resourceVersion_idx" ON "ChangeRecord"("uid", "resourceVersion");
