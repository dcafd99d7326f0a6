(* Skeleton.v — executions of a program without memory events. If a program has no reads and
   no writes, well-formedness (wf.cat) leaves its executions no rf, co or fr, so any mirror of
   one execution of it mirrors every other: how the exported files prove the race freedom of
   their satisfiability witness. *)
From Mapcheck Require Import Rel Dec Checks Exec Model_wf.

Lemma no_memory : forall X, wf_consistent X -> set_empty (M X) ->
  (forall x y, ~ rf X x y) /\ (forall x y, ~ co X x y) /\ (forall x y, ~ fr X x y).
Proof.
  intros X Hwf HM. unfold wf_consistent in Hwf.
  assert (Mdef : wf_ax_M_def X) by tauto.
  assert (Rf : wf_ax_rf_shape X) by tauto.
  assert (Co : wf_ax_co_shape X) by tauto.
  assert (Fr : wf_ax_fr_def X) by tauto.
  assert (W0 : forall x, ~ W X x).
  { intros x Wx. apply (Mdef x). right. split; [right; exact Wx | exact (HM x)]. }
  assert (Rf0 : forall x y, ~ rf X x y).
  { intros x y A. apply (Rf x y). split; [exact A |]. intros [[Wx _] _]. exact (W0 x Wx). }
  split; [exact Rf0 | split].
  - intros x y A. apply (Co x y). split; [exact A |]. intros [[Wx _] _]. exact (W0 x Wx).
  - intros x y A. apply (Fr x y). left. split; [exact A |].
    intros [z [Hr _]]. exact (Rf0 z x Hr).
Qed.

Lemma no_memory_skeleton : forall n Xs Y XB,
  exec_reflects n Xs XB -> same_skeleton Xs Y -> wf_consistent Y ->
  bset_empty n (b_M XB) = true -> bempty n (b_rf XB) = true ->
  bempty n (b_co XB) = true -> bempty n (b_fr XB) = true ->
  exec_reflects n Y XB.
Proof.
  intros n Xs Y XB H S Hwf HM Hrf Hco Hfr.
  assert (M0 : set_empty (M Y)).
  { intros x Mx. apply (proj2 (sk_M _ _ S)) in Mx.
    apply (set_empty_dec (r_M _ _ _ H)) in HM. exact (HM x Mx). }
  destruct (no_memory Y Hwf M0) as [Rf [Co Fr]].
  apply (skeleton_reflects n Xs Y XB H S); apply reflects_nothing; assumption.
Qed.
