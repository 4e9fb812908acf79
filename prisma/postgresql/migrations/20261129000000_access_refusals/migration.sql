-- Refused requests, counted per minute window, door, code, reason, subject and client address (not chained).
-- CreateTable
CREATE TABLE "RefusalCount" (
    "id" SERIAL NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "door" TEXT NOT NULL,
    "code" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "firstAt" TIMESTAMP(3) NOT NULL,
    "lastAt" TIMESTAMP(3) NOT NULL,
    "message" TEXT NOT NULL,

    CONSTRAINT "RefusalCount_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RefusalCount_lastAt_idx" ON "RefusalCount"("lastAt");

-- CreateIndex
CREATE UNIQUE INDEX "RefusalCount_windowStart_door_code_reason_subject_address_key" ON "RefusalCount"("windowStart", "door", "code", "reason", "subject", "address");
