-- AlterTable
ALTER TABLE "ReconcileRecord" ADD COLUMN "chainSeq" INTEGER;
ALTER TABLE "ReconcileRecord" ADD COLUMN "hash" TEXT;
ALTER TABLE "ChangeRecord" ADD COLUMN "chainSeq" INTEGER;
ALTER TABLE "ChangeRecord" ADD COLUMN "hash" TEXT;
ALTER TABLE "TimelineEntry" ADD COLUMN "chainSeq" INTEGER;
ALTER TABLE "TimelineEntry" ADD COLUMN "hash" TEXT;

-- CreateTable
CREATE TABLE "AuditChainHead" (
    "stream" TEXT NOT NULL PRIMARY KEY,
    "seq" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "prunedSeq" INTEGER NOT NULL DEFAULT 0,
    "prunedHash" TEXT
);

-- CreateIndex
CREATE UNIQUE INDEX "ReconcileRecord_chainSeq_key" ON "ReconcileRecord"("chainSeq");

-- CreateIndex
CREATE UNIQUE INDEX "ChangeRecord_chainSeq_key" ON "ChangeRecord"("chainSeq");

-- CreateIndex
CREATE UNIQUE INDEX "TimelineEntry_chainSeq_key" ON "TimelineEntry"("chainSeq");
