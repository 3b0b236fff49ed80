/**
 * Who may run how much: resource groups ({@link dev.quiver.scheduler.admission.ResourceGroups}),
 * the queue of jobs waiting for admission in each ({@link
 * dev.quiver.scheduler.admission.AdmissionQueue}) and the weighted fair share of task slots between
 * groups ({@link dev.quiver.scheduler.admission.FairShare}). Pure: the job loop owns their state.
 */
package dev.quiver.scheduler.admission;
